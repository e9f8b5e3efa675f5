import { and, eq } from 'drizzle-orm';
import type { Config } from '../config';
import { agentRefText, ofAgent, type AgentRef } from '../storage/agent-rows';
import type { Database } from '../storage/db';
import { vaultEntries } from '../storage/schema';
import { importKek, openSecret, sealSecret, type KeyRing, type SecretContext } from './crypto';
import { walletKey } from './owner';

const rings = new WeakMap<Config, Promise<KeyRing>>();

/** The deployment's vault keys, imported once per isolate. */
export function keyRing(config: Config): Promise<KeyRing> {
  let ring = rings.get(config);
  if (!ring) {
    ring = (async () => ({
      current: await importKek(config.vaultKek),
      ...(config.vaultKekPrevious ? { previous: await importKek(config.vaultKekPrevious) } : {}),
    }))();
    rings.set(config, ring);
  }
  return ring;
}

/** A database handle or an open drizzle transaction. */
type Orm = Database['orm'] | Parameters<Parameters<Database['orm']['transaction']>[0]>[0];

/** What a secret is stored for: the record using it and the wallet that entered it. */
export interface SecretBinding {
  /** The record using the secret, e.g. `llm_settings` or `mcp_connection:<id>`. */
  record: string;
  /** The wallet that entered it: the agent's owner at that time (any case). */
  wallet: string;
}

/** Encrypts and stores a secret for `binding`; returns the entry id. */
export async function storeSecret(orm: Orm, ring: KeyRing, agent: AgentRef, binding: SecretBinding, plaintext: string): Promise<string> {
  const id = crypto.randomUUID();
  const ownerWallet = walletKey(binding.wallet);
  const sealed = await sealSecret(ring, { entryId: id, agent: agentRefText(agent), owner: binding.record, ownerWallet }, plaintext);
  await orm.insert(vaultEntries).values({
    id,
    ...agent,
    owner: binding.record,
    ownerWallet,
    kekVersion: sealed.kekVersion,
    wrappedKey: sealed.wrappedKey,
    ciphertext: sealed.ciphertext,
  });
  return id;
}

/**
 * A secret read for a request: `open` with the secret; `missing` when the entry is gone;
 * `other_owner` when it was entered by another wallet than the requester (or before owners were
 * recorded): it is then never decrypted, and its owner must enter their own.
 */
export type SecretRead = { state: 'open'; secret: string } | { state: 'missing' } | { state: 'other_owner' };

/**
 * Reads the secret `id` of this agent and record for `binding.wallet`, the requester the owner
 * gate proved to own the agent now. The stored owner wallet is part of the additional data, so a
 * row edited to name another wallet fails to decrypt (VaultDecryptError).
 */
export async function readSecret(orm: Orm, ring: KeyRing, agent: AgentRef, binding: SecretBinding, id: string): Promise<SecretRead> {
  const rows = await orm
    .select()
    .from(vaultEntries)
    .where(and(eq(vaultEntries.id, id), ofAgent(vaultEntries, agent)))
    .limit(1);
  return openEntry(ring, agent, binding, rows[0]);
}

/** A stored entry as read from `gateway.vault_entries`. */
export type VaultEntry = typeof vaultEntries.$inferSelect;

/**
 * Opens an entry the caller read itself (joined to the row that uses it, with the agent in the
 * join), under the same rule as `readSecret`: only for the wallet that entered it. Call it only
 * after the owner check passed.
 */
export async function openEntry(
  ring: KeyRing,
  agent: AgentRef,
  binding: SecretBinding,
  row: VaultEntry | null | undefined,
): Promise<SecretRead> {
  if (!row) return { state: 'missing' };
  if (row.ownerWallet === null || row.ownerWallet !== walletKey(binding.wallet)) return { state: 'other_owner' };
  const ctx: SecretContext = { entryId: row.id, agent: agentRefText(agent), owner: binding.record, ownerWallet: row.ownerWallet };
  return { state: 'open', secret: await openSecret(ring, ctx, row) };
}

/** The wallet that entered the secret `id` (lower-case); null when unknown or there is no such entry. */
export async function secretOwnerWallet(orm: Orm, id: string | null): Promise<string | null> {
  if (id === null) return null;
  const [row] = await orm.select({ ownerWallet: vaultEntries.ownerWallet }).from(vaultEntries).where(eq(vaultEntries.id, id)).limit(1);
  return row?.ownerWallet ?? null;
}

export async function deleteSecret(orm: Orm, id: string): Promise<void> {
  await orm.delete(vaultEntries).where(eq(vaultEntries.id, id));
}
