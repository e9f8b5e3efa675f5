import type { SqlPool } from '../storage/sql-client';
import { rewrapSecret, type KeyRing } from './crypto';

export interface RotationProgress {
  done: number;
  total: number;
  failed: number;
}

/**
 * Re-wraps every stored secret's data key under the ring's current KEK, in batches; secrets are
 * never decrypted. Run with the old KEK as `previous`. Safe to stop and rerun: entries already
 * under the current KEK no longer qualify, and each update checks the version it read.
 */
export async function rotateVault(
  pool: SqlPool,
  ring: KeyRing,
  options: { batchSize?: number; onProgress?: (p: RotationProgress) => void } = {},
): Promise<RotationProgress & { failures: { id: string; reason: string }[] }> {
  const target = ring.current.version;
  const batchSize = options.batchSize ?? 200;
  const { rows: count } = await pool.query<{ n: string }>('select count(*) as n from gateway.vault_entries where kek_version <> $1', [
    target,
  ]);
  const progress: RotationProgress = { done: 0, total: Number(count[0]?.n ?? 0), failed: 0 };
  const failures: { id: string; reason: string }[] = [];
  options.onProgress?.({ ...progress });
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await pool.query<{
      id: string;
      chain_id: number;
      collection: string;
      token_id: string;
      owner: string;
      owner_wallet: string | null;
      kek_version: number;
      wrapped_key: Uint8Array;
      ciphertext: Uint8Array;
    }>(
      `select id, chain_id, collection, token_id, owner, owner_wallet, kek_version, wrapped_key, ciphertext from gateway.vault_entries
       where kek_version <> $1 and id > $2 order by id limit $3`,
      [target, after, batchSize],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      after = row.id;
      try {
        const ctx = {
          entryId: row.id,
          agent: `${row.chain_id}:${row.collection}:${row.token_id}`,
          owner: row.owner,
          ownerWallet: row.owner_wallet,
        };
        const sealed = {
          kekVersion: row.kek_version,
          wrappedKey: new Uint8Array(row.wrapped_key),
          ciphertext: new Uint8Array(row.ciphertext),
        };
        const rewrapped = await rewrapSecret(ring, ctx, sealed);
        await pool.query(
          'update gateway.vault_entries set kek_version = $2, wrapped_key = $3, updated_at = now() where id = $1 and kek_version = $4',
          [row.id, rewrapped.kekVersion, rewrapped.wrappedKey, row.kek_version],
        );
        progress.done += 1;
      } catch (err) {
        progress.failed += 1;
        failures.push({ id: row.id, reason: err instanceof Error ? err.message : String(err) });
      }
      options.onProgress?.({ ...progress });
    }
  }
  return { ...progress, failures };
}
