import { createRouter } from '../http/router';
import * as handlers from './memory.handlers';
import * as routes from './memory.routes';

/** The agent's memory across its contexts (docs/memory.md): search. */
export const memory = createRouter().openapi(routes.searchMemory, handlers.searchMemoryHandler);

/** Search reads while the owner check runs (docs/architecture.md#a-requests-way-through); the gate answers only after it passed. */
export const memoryOverlapsOwnerCheck = [routes.searchMemory];
