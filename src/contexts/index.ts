import { createRouter } from '../http/router';
import * as handlers from './contexts.handlers';
import * as routes from './contexts.routes';

export const contexts = createRouter()
  .openapi(routes.listContextKeys, handlers.listKeysHandler)
  .openapi(routes.createContext, handlers.createContextHandler)
  .openapi(routes.createContexts, handlers.createContextsHandler)
  .openapi(routes.appendMessage, handlers.appendMessageHandler)
  .openapi(routes.appendMessages, handlers.appendMessagesHandler)
  .openapi(routes.readMessages, handlers.readMessagesHandler);
