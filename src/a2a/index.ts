import { createRouter } from '../http/router';
import { a2aHandler } from './a2a.handlers';
import * as routes from './a2a.routes';

/** The agent to other agents: A2A JSON-RPC, a room above replies (docs/architecture.md). */
export const agentA2a = createRouter().openapi(routes.agentA2a, a2aHandler);

export { a2aChallenge, a2aParseError } from './guards';
