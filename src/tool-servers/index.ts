import { createRouter } from '../http/router';
import * as handlers from './mcp.handlers';
import * as routes from './mcp.routes';

export const mcp = createRouter()
  .openapi(routes.listConnections, handlers.listHandler)
  .openapi(routes.addConnection, handlers.addHandler)
  .openapi(routes.removeConnection, handlers.removeHandler)
  .openapi(routes.listTools, handlers.toolsHandler)
  .openapi(routes.callTool, handlers.callHandler)
  .openapi(routes.replaceConnectionAuth, handlers.replaceAuthHandler);
