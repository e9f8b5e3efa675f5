import { createRouter } from '../http/router';
import * as handlers from './agent-mcp.handlers';
import * as routes from './agent-mcp.routes';

/** The agent as an MCP server: a room above replies and the tool seam (docs/architecture.md). */
export const agentMcp = createRouter().openapi(routes.agentMcp, handlers.mcpHandler);

export { mcpChallenge } from './challenge';
export { mcpRebindingGuard } from './rebinding';

/** Reads the tools snapshot while the owner check runs (the slower of chain and database, not both); lists and calls only after it passed. */
export const agentMcpOverlapsOwnerCheck = [routes.agentMcp];
