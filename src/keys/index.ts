import { createRouter } from '../http/router';
import * as handlers from './keys.handlers';
import * as routes from './keys.routes';

export const keys = createRouter()
  .openapi(routes.createAgentKey, handlers.createHandler)
  .openapi(routes.listAgentKeys, handlers.listHandler)
  .openapi(routes.revokeAgentKey, handlers.revokeHandler);

export { compileKeyAccess, type KeyAccess } from './scopes';
export { documentKeyAccess } from './openapi';
