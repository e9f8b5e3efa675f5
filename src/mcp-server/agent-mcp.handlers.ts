import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { auditToolCalls } from '../audit/entry';
import { AppError } from '../errors';
import { auditActor, replyDeps, toolRights } from '../replies/request-deps';
import { agentTools } from '../tool-servers/agent-tools';
import { toolCatalog } from '../tools/catalog';
import type { ToolCaller, ToolEnv } from '../tools/source';
import { auditOutcome } from '../tools/tool';
import type { AppBindings } from '../types';
import type * as routes from './agent-mcp.routes';
import { conversation } from './conversation';

const ACCEPTS = ['application/json', 'text/event-stream'];

/** The caller as the credential middleware left it (c.var), after the owner check: the MCP server's surface. */
function mcpCaller(c: Context<AppBindings>): ToolCaller {
  return { surface: 'server', rights: toolRights(c, 'server'), allowedTools: c.var.agentKeyUse?.tools ?? null };
}

export const mcpHandler: RouteHandler<typeof routes.agentMcp, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const accept = (c.req.header('accept') ?? '').toLowerCase();
  if (!ACCEPTS.every((type) => accept.includes(type))) {
    throw new AppError('not_acceptable', 'Send Accept: application/json, text/event-stream (MCP Streamable HTTP)');
  }
  const { agent } = c.var;
  const deps = replyDeps(c);
  // The tools snapshot is read while the owner check is on its way (a request pays the slower of
  // the chain and the database, not both); nothing is listed, opened or called before the check passed.
  const method = (body as { method?: unknown }).method;
  const snapshot = method === 'tools/list' || method === 'tools/call' ? agentTools(deps.mcp, agent) : undefined;
  snapshot?.catch(() => undefined); // awaited by the catalog, after the check
  await c.var.ownerCheck;
  const caller = mcpCaller(c);
  const actor = auditActor(c);
  const env: ToolEnv = {
    agent,
    store: deps.store,
    mcp: deps.mcp,
    connections: () => snapshot ?? agentTools(deps.mcp, agent),
    conversation: conversation(c, deps, agent),
  };
  const id = `${agent.collection}/${agent.tokenId}`;
  // The SDK's server is loaded by the first MCP request only.
  const { serveMcp } = await import('./server');
  const answer = await serveMcp(c.req.raw, body, {
    info: { name: `agent-gateway/${id}`, title: `Agent ${agent.tokenId} of ${agent.collection}`, version: '0.1.0' },
    instructions: 'An AI agent (an NFT). `ask` talks to it; the memory tools read and add to its memory; its other tools are its own.',
    catalog: () => toolCatalog(env, caller),
    // The audit entry is written after the answer (`waitUntil`), off the call's path; it never throws.
    called: async (tool, args, outcome, durationMs) => {
      const entry = { tool: tool.name, connectionId: tool.connectionId, arguments: args, outcome: auditOutcome(outcome), durationMs };
      const written = auditToolCalls(deps.db, agent, actor, [entry]);
      if (deps.later) deps.later(written);
      else await written;
    },
  });
  return answer as unknown as ReturnType<typeof c.json<Record<string, unknown>, 200>>;
};
