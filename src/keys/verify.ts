import { getAddress, type Address } from 'viem';
import type { AgentIdentity } from '../identity/identity';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import type { AgentKeyCredential } from '../identity/credential';
import type { KeyScope } from './scopes';
import { recordKeyUse } from './usage';

/** A key that passed every check of its own: the owner check still decides. */
export interface VerifiedKey {
  id: string;
  /** The wallet that made the key: the owner check compares the on-chain owner with it. */
  wallet: Address;
  /** Every scope the key has (a route checks only the one it needs). */
  scopes: KeyScope[];
  /** The key's own daily token limit; null: none. */
  tokensPerDay: number | null;
  /** The MCP tools the key may list and call; null: every tool. */
  tools: string[] | null;
  /** `delegate`: made by the owner's delegate, serving while its maker still is one; null: made by the owner. */
  createdVia: 'delegate' | null;
  /** For a key a delegate made: the lower-case owner it acted for (null: an older key, which serves no one). */
  actingFor: string | null;
}

interface KeyVerdictRow {
  id: string;
  created_by_wallet: string;
  created_via: string | null;
  acting_for_wallet: string | null;
  scopes: KeyScope[];
  tokens_per_day: string | null;
  tools: string[] | null;
  same_agent: boolean;
  in_scope: boolean;
  revoked: boolean;
  expired: boolean;
}

/**
 * One query by the key's hash, run beside the owner check (never cached: a revoke holds from the
 * very next request). Verdicts in this order: unknown 401 `key_invalid`, revoked 401 `key_revoked`,
 * expired 401 `key_expired`, another agent or chain 403 `key_wrong_agent`, outside its scopes 403
 * `key_scope_missing`. Only a holder of a once-genuine key can tell the 401s apart: a 160-bit key
 * cannot be guessed, so naming the reason leaks nothing and tells an operator what to do.
 */
export async function verifyAgentKey(db: Database, key: AgentKeyCredential, agent: AgentIdentity): Promise<VerifiedKey> {
  let row: KeyVerdictRow | undefined;
  try {
    const { rows } = await db.sql.query<KeyVerdictRow>(
      `select id, created_by_wallet, created_via, acting_for_wallet, scopes, tokens_per_day, tools,
              (chain_id = $2 and collection = $3 and token_id = $4) as same_agent,
              ($5 = 'any' or $5 = any(scopes)) as in_scope,
              revoked_at is not null as revoked,
              coalesce(expires_at <= now(), false) as expired
         from "gateway"."agent_keys" where key_hash = $1 limit 1`,
      [key.hash, agent.chainId, agent.collection.toLowerCase(), agent.tokenId.toString(), key.scope],
    );
    row = rows[0];
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) throw new AppError('key_invalid', 'The agent key is not valid');
  if (row.revoked) throw new AppError('key_revoked', 'The agent key has been revoked');
  if (row.expired) throw new AppError('key_expired', 'The agent key has expired; ask the owner for a new one');
  if (!row.same_agent) throw new AppError('key_wrong_agent', 'The agent key belongs to another agent or another deployment');
  if (!row.in_scope) throw new AppError('key_scope_missing', `The agent key lacks the scope ${key.scope} this route needs`);
  return {
    id: row.id,
    wallet: getAddress(row.created_by_wallet),
    scopes: row.scopes,
    tokensPerDay: row.tokens_per_day === null ? null : Number(row.tokens_per_day),
    tools: row.tools,
    createdVia: row.created_via === 'delegate' ? 'delegate' : null,
    actingFor: row.acting_for_wallet,
  };
}

/**
 * After the response (`waitUntil`): a key whose owner check found another owner is revoked on
 * sight (`owner_changed`: the agent was sold, and the key must not come back with it); a key whose
 * request passed has its use recorded (src/keys/usage.ts). Never throws.
 */
export async function settleKeyUse(db: Database, key: Promise<VerifiedKey>, ownerCheck: Promise<unknown>): Promise<void> {
  let verified: VerifiedKey;
  try {
    verified = await key;
  } catch {
    return;
  }
  try {
    await ownerCheck;
  } catch (err) {
    // A key a delegate made only stops serving (its maker may be a delegate again); an owner's is revoked.
    if (err instanceof AppError && err.code === 'not_owner' && verified.createdVia === null) {
      await db.sql
        .query(
          `update "gateway"."agent_keys" set revoked_at = now(), revoked_reason = 'owner_changed' where id = $1 and revoked_at is null`,
          [verified.id],
        )
        .catch((e: unknown) => warn('revoking a key after a transfer failed', e));
    }
    return;
  }
  await recordKeyUse(db.sql, verified.id, Date.now()).catch((e: unknown) => warn('recording a key use failed', e));
}

function warn(what: string, err: unknown): void {
  console.warn(JSON.stringify({ level: 'warn', warning: `${what}: ${err instanceof Error ? err.name : 'unknown'}` }));
}
