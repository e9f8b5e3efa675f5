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

/**
 * Routes whose storage work overlaps the owner check (docs/architecture.md#a-requests-way-through): their services read while the
 * check runs and await it before committing anything; the gate answers only after it passed.
 */
export const overlapOwnerCheck = [
  routes.listContextKeys,
  routes.readMessages,
  routes.createContext,
  routes.createContexts,
  routes.appendMessage,
  routes.appendMessages,
];
