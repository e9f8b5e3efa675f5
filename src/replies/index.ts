import { createRouter } from '../http/router';
import * as handlers from './replies.handlers';
import * as routes from './replies.routes';

/** The agent's replies (DESIGN §11): a room above contexts, settings and mcp. */
export const replies = createRouter().openapi(routes.replyToContext, handlers.replyHandler);

/**
 * The reply's reads overlap the owner check (DESIGN §2): it awaits the check before it opens the
 * key, takes the lease, stores the message or calls the model.
 */
export const replyOverlapsOwnerCheck = [routes.replyToContext];
