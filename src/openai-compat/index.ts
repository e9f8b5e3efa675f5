import { createRouter } from '../http/router';
import * as handlers from './chat.handlers';
import * as routes from './chat.routes';

/** OpenAI-compatible access to the agent's replies (docs/replies.md): Chat Completions on the reply service. */
export const openaiCompat = createRouter().openapi(routes.createChatCompletion, handlers.chatCompletionHandler);

/** Like the reply route, the completion's reads overlap the owner check (docs/architecture.md#a-requests-way-through). */
export const chatCompletionOverlapsOwnerCheck = [routes.createChatCompletion];
