import { createRouter } from '../http/router';
import * as handlers from './collections.handlers';
import * as routes from './collections.routes';

export { OWNED_TOKENS_PATH } from './collections.routes';

/** Collections as a wallet sees them: its own agents in a registered collection (for the dashboard's picker). */
export const collections = createRouter().openapi(routes.listOwnedTokens, handlers.listOwnedTokensHandler);
