import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { AgentIdentity } from '../agents/identity';
import type { Config } from '../config';
import type { Database } from '../storage/db';
import { vaultEntries } from '../storage/schema';
import { importKek, openSecret, sealSecret, type KeyRing, type SecretContext } from './crypto';

/** How gateway rows name their agent: chain, lower-case collection, decimal token id. */
export interface AgentRef {
  chainId: number;
  collection: string;
  tokenId: string;
}

export function agentRef(agent: AgentIdentity): AgentRef {
  return { chainId: agent.chainId, collection: agent.collection.toLowerCase(), tokenId: agent.tokenId.toString() };
}

/** The rows of one agent in a gateway table keyed by `(chain_id, collection, token_id)`. */
export function ofAgent(table: { chainId: PgColumn; collection: PgColumn; tokenId: PgColumn }, ref: AgentRef): SQL {
  return and(eq(table.chainId, ref.chainId), eq(table.collection, ref.collection), eq(table.tokenId, ref.tokenId))!;
}

export function agentRefText(ref: AgentRef): string {
  return `${ref.chainId}:${ref.collection}:${ref.tokenId}`;
}

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

/** Encrypts and stores a secret for `owner`; returns the entry id. */
export async function storeSecret(orm: Orm, ring: KeyRing, agent: AgentRef, owner: string, plaintext: string): Promise<string> {
  const id = crypto.randomUUID();
  const ctx: SecretContext = { entryId: id, agent: agentRefText(agent), owner };
  const sealed = await sealSecret(ring, ctx, plaintext);
  await orm.insert(vaultEntries).values({
    id,
    ...agent,
    owner,
    kekVersion: sealed.kekVersion,
    wrappedKey: sealed.wrappedKey,
    ciphertext: sealed.ciphertext,
  });
  return id;
}

/** Decrypts the secret `id` of this agent and owner; null when there is no such entry. */
export async function readSecret(orm: Orm, ring: KeyRing, agent: AgentRef, owner: string, id: string): Promise<string | null> {
  const rows = await orm
    .select()
    .from(vaultEntries)
    .where(
      and(eq(vaultEntries.id, id), ofAgent(vaultEntries, agent)),
    )
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return openSecret(ring, { entryId: row.id, agent: agentRefText(agent), owner }, row);
}

export async function deleteSecret(orm: Orm, id: string): Promise<void> {
  await orm.delete(vaultEntries).where(eq(vaultEntries.id, id));
}
