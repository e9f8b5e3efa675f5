import { createRouter } from '../http/router';
import * as handlers from './replies.handlers';
import * as routes from './replies.routes';

/** The agent's replies: a room above contexts, settings, tool servers and the tool seam (docs/architecture.md). */
export const replies = createRouter().openapi(routes.replyToContext, handlers.replyHandler);

/**
 * The reply's reads overlap the owner check (a request pays the slower of the chain and the database, not both): it awaits the check before it opens the
 * key, takes the lease, stores the message or calls the model.
 */
export const replyOverlapsOwnerCheck = [routes.replyToContext];
