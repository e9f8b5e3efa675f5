import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { auditToolCalls } from '../audit/entry';
import { AppError } from '../errors';
import { auditActor, replyDeps, usageCaller } from '../replies/request-deps';
import { agentTools } from '../tool-servers/agent-tools';
import type { AppBindings } from '../types';
import { toolCatalog } from './catalog.service';
import type * as routes from './agent-mcp.routes';
import type { McpCaller } from './served-tool';

const ACCEPTS = ['application/json', 'text/event-stream'];

/** The caller as the credential middleware left it (c.var), after the owner check. */
function mcpCaller(c: Context<AppBindings>): McpCaller {
  const key = c.var.agentKeyUse;
  return {
    defaultContextKey: key ? `mcp/${key.id}` : `mcp/${c.var.wallet.toLowerCase()}`,
    allowedTools: key?.tools ?? null,
    actor: auditActor(c),
    usage: usageCaller(c),
  };
}

export const mcpHandler: RouteHandler<typeof routes.agentMcp, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const accept = (c.req.header('accept') ?? '').toLowerCase();
  if (!ACCEPTS.every((type) => accept.includes(type))) {
    throw new AppError('not_acceptable', 'Send Accept: application/json, text/event-stream (MCP Streamable HTTP)');
  }
  const { agent } = c.var;
  const deps = replyDeps(c);
  // The tools snapshot is read while the owner check is on its way (DESIGN §2: a read costs
  // max(RPC, DB)); nothing is listed, opened or called before the check passed.
  const method = (body as { method?: unknown }).method;
  const snapshot = method === 'tools/list' || method === 'tools/call' ? agentTools(deps.mcp, agent) : undefined;
  snapshot?.catch(() => undefined); // awaited by the catalog, after the check
  await c.var.ownerCheck;
  const caller = mcpCaller(c);
  const id = `${agent.collection}/${agent.tokenId}`;
  // The SDK's server is loaded by the first MCP request only.
  const { serveMcp } = await import('./server');
  const answer = await serveMcp(c.req.raw, body, {
    info: { name: `agent-gateway/${id}`, title: `Agent ${agent.tokenId} of ${agent.collection}`, version: '0.1.0' },
    instructions: 'An AI agent (an NFT). `ask` talks to it; the memory tools read and add to its memory; its other tools are its own.',
    catalog: () => toolCatalog(deps, agent, caller, snapshot),
    // The audit entry is written after the answer (`waitUntil`), off the call's path; it never throws.
    called: async (tool, args, call, durationMs) => {
      const entry = {
        tool: tool.definition.name,
        connectionId: tool.audit?.connectionId ?? null,
        arguments: args,
        outcome: call.outcome,
        durationMs,
      };
      const written = auditToolCalls(deps.db, agent, caller.actor, [entry]);
      if (deps.later) deps.later(written);
      else await written;
    },
  });
  return answer as unknown as ReturnType<typeof c.json<Record<string, unknown>, 200>>;
};
