/**
 * What the reply service needs from a request (its context's variables and bindings): its deps,
 * and who asks (for usage and the audit trail). Shared by the reply route, the agent's MCP server
 * (`ask`, src/mcp-server) and the chat completions (src/openai-compat), so all count and audit a
 * reply the same way.
 */
import type { Context } from 'hono';
import type { AuditActor } from '../audit/entry';
import { agentStore } from '../http/agent-store';
import { callerRights } from '../tools/rights';
import type { Surface } from '../tools/tool';
import type { AppBindings } from '../types';
import { type Credential, keyCredential, oauthCredential, walletCredential } from '../usage/record.service';
import { keyRing } from '../vault/store';
import type { ReplyDeps, ReplyInput } from './reply-types';
import type { RuntimeTracing } from './trace';

/** The reply service's dependencies from a request. */
export function replyDeps(c: Context<AppBindings>): ReplyDeps {
  const { config, db } = c.var;
  const ring = () => keyRing(config);
  const outbound = { loopbackTargets: config.dev.loopbackTargets };
  return {
    store: agentStore(c),
    db,
    ring,
    mcp: { db, ring, timeoutMs: config.mcpTimeoutMs, ceilingMs: config.mcpCallCeilingMs, outbound },
    ai: c.env.AI,
    limits: {
      maxTokensPerRequest: config.maxTokensPerRequest,
      maxIterations: config.maxIterations,
      llmTimeoutMs: config.llmTimeoutMs,
      mcpTimeoutMs: config.mcpTimeoutMs,
    },
    later: afterResponse(c),
    tracing: { api: runtimeTracing(c), messageText: config.traceMessageText },
  };
}

/** `waitUntil` of the request (the summary after a reply); undefined without an execution context (app.request in unit tests). */
function afterResponse(c: Context<AppBindings>): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}

/** The runtime's tracing API (`ctx.tracing`); none without an execution context (app.request in unit tests). */
function runtimeTracing(c: Context<AppBindings>): RuntimeTracing | undefined {
  try {
    return (c.executionCtx as { tracing?: RuntimeTracing }).tracing;
  } catch {
    return undefined;
  }
}

/** Who acted, for the audit trail: the agent key, or the owner's wallet (read after the owner check). */
export function auditActor(c: Context<AppBindings>): AuditActor {
  if (c.var.agentKeyUse) return { keyId: c.var.agentKeyUse.id };
  // An OAuth app acts for the wallet: both are named.
  const via = c.var.agent.actor?.via;
  const wallet = { wallet: c.var.wallet, ...(via ? { via } : {}) };
  return c.var.oauthClientId ? { ...wallet, clientId: c.var.oauthClientId } : wallet;
}

/**
 * Who usage is counted for: the key (`key:{id}`, with its own daily limit), an OAuth app acting for
 * the wallet (`oauth:{wallet}:{clientId}`, within the wallet's limits), or the wallet.
 */
export function usageCaller(c: Context<AppBindings>): { credential: Credential; tokensPerDay: number | null } {
  const key = c.var.agentKeyUse;
  if (key) return { credential: keyCredential(key.id), tokensPerDay: key.tokensPerDay };
  const clientId = c.var.oauthClientId;
  return {
    credential: clientId ? oauthCredential(c.var.wallet, clientId) : walletCredential(c.var.wallet, c.var.agent.actor?.via),
    tokensPerDay: null,
  };
}

/** The caller's rights to the agent's tools on `surface`: the owner's, or the key's scopes (known once the owner check passed). */
export function toolRights(c: Context<AppBindings>, surface: Surface) {
  return callerRights(
    c.var.agentKey ? (c.var.agentKeyScopes ?? []) : null,
    surface,
    c.var.role === 'owner' ? undefined : c.var.accessLevel,
  );
}

/**
 * Who asks for a reply, as the reply service wants it (each asked after the owner check), with an
 * agent key's tool allowlist: it narrows the reply's tools on every route that runs one (POST
 * …/reply, chat completions), as it narrows the MCP server's.
 */
export function replyCaller(c: Context<AppBindings>): Pick<ReplyInput, 'rights' | 'actor' | 'caller' | 'allowedTools'> {
  return {
    // A key not yet read (never after the owner check) is allowed no tool rather than every tool.
    allowedTools: () => (c.var.agentKey && !c.var.agentKeyUse ? [] : (c.var.agentKeyUse?.tools ?? null)),
    rights: () => toolRights(c, 'reply'),
    actor: () => auditActor(c),
    caller: () => usageCaller(c),
  };
}
