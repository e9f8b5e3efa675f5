import type { Agent } from '../identity/agent';
import { storableJsonText } from '../encoding/storable-json';
import { AppError } from '../errors';
import { findAgentSchema } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import type { Idempotency, MessagesDeps } from './messages.service';

/**
 * Remembered answers of idempotent operations other than append (an agent reply), in the agent's
 * own idempotency records (same table, same 48 h clean-up as append's; keys namespaced by the
 * caller, e.g. `reply:<Idempotency-Key>`).
 */

/** The answer remembered under `idem.key`; undefined when none. 400 `idempotency_key_reused` when it was for another request. */
export async function findRemembered<T>(deps: MessagesDeps, agent: Agent, idem: Idempotency): Promise<T | undefined> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) return undefined;
  let row: { request_hash: string; response: T } | undefined;
  try {
    ({
      rows: [row],
    } = await deps.sql.query<{ request_hash: string; response: T }>(
      `SELECT request_hash, response FROM ${schema.quoted}.idempotency WHERE key = $1`,
      [idem.key],
    ));
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) return undefined;
  if (row.request_hash !== idem.requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; use a new key');
  }
  return row.response;
}

/**
 * Remembers `answer` under `idem.key` (the first one stays if a twin remembered first), made
 * storable (`storableJsonText`: NUL and lone surrogates replaced) so a retry always finds it.
 */
export async function remember(deps: MessagesDeps, agent: Agent, idem: Idempotency, answer: unknown): Promise<void> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) return;
  try {
    await deps.sql.query(
      `INSERT INTO ${schema.quoted}.idempotency (key, request_hash, response) VALUES ($1, $2, $3::jsonb) ON CONFLICT (key) DO NOTHING`,
      [idem.key, idem.requestHash, storableJsonText(answer)],
    );
  } catch (err) {
    throw databaseError(err);
  }
}
