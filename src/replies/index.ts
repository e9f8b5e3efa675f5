import { createRouter } from '../http/router';
import * as handlers from './replies.handlers';
import * as routes from './replies.routes';

/** The agent's replies (DESIGN §11): a room above contexts, settings and mcp. */
export const replies = createRouter().openapi(routes.replyToContext, handlers.replyHandler);
