/**
 * What one audit entry says (docs/security.md, The audit trail) and how it is written: beside an administrative change, in
 * the change's own transaction (no change without its entry, no entry without its change); for tool
 * calls, after the call ran, on its own (the call has happened either way: a failed insert is logged,
 * never the call's answer lost).
 */
import type { AgentIdentity } from '../identity/identity';
import { sha256Hex } from '../encoding/sha256-hex';
import { agentRef } from '../storage/agent-rows';
import type { Database } from '../storage/db';
import { auditLog } from '../storage/schema';

/** How a wallet that is not the owner came in: the owner's delegate, the token's renter, or a stranger who paid for a reply. */
export const ACTOR_VIAS = ['delegate', 'renter', 'payer'] as const;
export type ActorVia = (typeof ACTOR_VIAS)[number];

/**
 * Who acted: a wallet (its token, or an OAuth app acting for it: `clientId`; `via` when it was not
 * the owner: ACTOR_VIAS; absent for the owner), or an agent key (by id).
 */
export type AuditActor = { wallet: string; clientId?: string; via?: ActorVia } | { keyId: string };

/** Every action the trail records: administrative changes, and tool calls. */
export const AUDIT_ACTIONS = [
  'llm_settings.set',
  'prompt_template.put',
  'database.setup',
  'database.activate',
  'mcp_connection.add',
  'mcp_connection.remove',
  'mcp_credentials.set',
  'agent_key.create',
  'agent_key.revoke',
  'agent_profile.set',
  'oauth_grant.approve',
  'oauth_grant.revoke',
  'tool.call',
  'payment.settled',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * What was acted on, by name or id: never a secret, a URL, a header value or agent memory (a
 * context key or message). `tool` is the tool's name on its server.
 */
export interface AuditTarget {
  templateKey?: string;
  connectionId?: string;
  keyId?: string;
  setupId?: string;
  tool?: string;
  provider?: string;
  model?: string;
  /** An OAuth grant (`oauth_grant.approve`, `oauth_grant.revoke`) and the client it was made for. */
  grantId?: string;
  clientId?: string;
  /** The client's name as the approval named it (`oauth_grant.approve`): a document's host, or a registered client's unverified name. */
  clientName?: string;
  /** A settled payment (`payment.settled`): its transaction hash, the amount in US dollars and who was paid. */
  transaction?: string;
  amountUsd?: string;
  payTo?: string;
}

export interface AuditEntryInput {
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  /** `ok`, or the error code the action ended with (tool calls only: a change that failed is not made). */
  outcome?: string;
  durationMs?: number;
  argumentsSha256?: string;
}

type Insert = typeof auditLog.$inferInsert;

/** The row of an entry for `agent`. */
export function auditRow(agent: AgentIdentity, entry: AuditEntryInput): Insert {
  return {
    ...agentRef(agent),
    actorWallet: 'wallet' in entry.actor ? entry.actor.wallet.toLowerCase() : null,
    actorKeyId: 'keyId' in entry.actor ? entry.actor.keyId : null,
    actorClientId: 'wallet' in entry.actor ? (entry.actor.clientId ?? null) : null,
    actorVia: 'wallet' in entry.actor ? (entry.actor.via ?? null) : null,
    action: entry.action,
    target: entry.target,
    outcome: entry.outcome ?? 'ok',
    durationMs: entry.durationMs ?? null,
    argumentsSha256: entry.argumentsSha256 ?? null,
  };
}

/** Anything that can insert: the pool's query builder or a transaction of it. */
type Inserter = Pick<Database['orm'], 'insert'>;

/**
 * Writes the entry of an administrative change, inside the change's transaction `tx`: made by the
 * owner, or by `agent.actor` (a delegate) when the gate let one in.
 */
export async function auditChange(
  tx: Inserter,
  agent: AgentIdentity & { owner: string; actor?: { wallet: string; via: 'delegate' | 'renter' } | undefined },
  action: AuditAction,
  target: AuditTarget,
): Promise<void> {
  await tx.insert(auditLog).values(auditRow(agent, { actor: agentActor(agent), action, target }));
}

/** Who acts with a wallet on `agent`: its owner, or the delegate or renter the gate let in (`agent.actor`). */
export function agentActor(agent: { owner: string; actor?: { wallet: string; via: 'delegate' | 'renter' } | undefined }): AuditActor {
  return agent.actor ? { wallet: agent.actor.wallet, via: agent.actor.via } : { wallet: agent.owner };
}

/** The SHA-256 (hex) of a tool call's arguments as JSON: what the trail keeps of them. */
export function argumentsSha256(args: unknown): Promise<string> {
  return sha256Hex(JSON.stringify(args ?? {}));
}

/** One tool call that ran, as the trail records it. */
export interface ToolCallRecord {
  tool: string;
  connectionId: string | null;
  arguments: unknown;
  outcome: string;
  durationMs: number;
}

/**
 * Writes the entries of tool calls that ran (one multi-row statement over HTTP). Never throws: the
 * calls have happened; a failed write is logged (its kind only) and the answer goes out.
 */
export async function auditToolCalls(
  db: Database,
  agent: AgentIdentity,
  actor: AuditActor,
  calls: readonly ToolCallRecord[],
): Promise<void> {
  if (calls.length === 0) return;
  try {
    const rows = await Promise.all(
      calls.map(async (call) =>
        auditRow(agent, {
          actor,
          action: 'tool.call',
          target: { tool: call.tool, ...(call.connectionId === null ? {} : { connectionId: call.connectionId }) },
          outcome: call.outcome,
          durationMs: call.durationMs,
          argumentsSha256: await argumentsSha256(call.arguments),
        }),
      ),
    );
    await db.reads.insert(auditLog).values(rows);
  } catch (err) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        warning: `writing the audit entries of tool calls failed: ${err instanceof Error ? err.name : 'unknown'}`,
      }),
    );
  }
}
