import { createRouter } from '../http/router';
import * as handlers from './agent-mcp.handlers';
import * as routes from './agent-mcp.routes';

/** The agent as an MCP server (DESIGN §14): a room above replies, memory, contexts and mcp. */
export const agentMcp = createRouter().openapi(routes.agentMcp, handlers.mcpHandler);

export { mcpChallenge } from './challenge';

/** Reads the tools snapshot while the owner check runs (DESIGN §2); lists and calls only after it passed. */
export const agentMcpOverlapsOwnerCheck = [routes.agentMcp];
