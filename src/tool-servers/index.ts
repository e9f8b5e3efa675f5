import { createRouter } from '../http/router';
import * as handlers from './mcp.handlers';
import * as routes from './mcp.routes';
import * as oauthHandlers from './oauth/oauth.handlers';
import * as oauthRoutes from './oauth/oauth.routes';

export const mcp = createRouter()
  .openapi(routes.listConnections, handlers.listHandler)
  .openapi(routes.addConnection, handlers.addHandler)
  .openapi(routes.removeConnection, handlers.removeHandler)
  .openapi(routes.listTools, handlers.toolsHandler)
  .openapi(routes.callTool, handlers.callHandler)
  .openapi(routes.replaceConnectionAuth, handlers.replaceAuthHandler)
  .openapi(oauthRoutes.authorizeConnection, oauthHandlers.authorizeHandler)
  .openapi(oauthRoutes.oauthCallback, oauthHandlers.callbackHandler)
  .openapi(oauthRoutes.clientMetadata, oauthHandlers.clientMetadataHandler);
