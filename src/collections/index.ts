import { createRouter } from '../http/router';
import * as handlers from './collections.handlers';
import * as routes from './collections.routes';

export { COLLECTIONS_PATH, OWNED_TOKENS_PATH } from './collections.routes';

/**
 * Collections as a wallet sees them (for the dashboard's picker): the ones registered on this
 * deployment, and its own agents in one of them.
 */
export const collections = createRouter()
  .openapi(routes.listCollections, handlers.listCollectionsHandler)
  .openapi(routes.listOwnedTokens, handlers.listOwnedTokensHandler);
