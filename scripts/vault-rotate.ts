/**
 * Re-wraps every vault secret under a new key encryption key (KEK), with a progress bar.
 *
 *   1. wrangler secret put VAULT_KEK_PREVIOUS  (the current KEK)  and  VAULT_KEK  (the new one,
 *      with a higher version: v2:<base64 of 32 bytes>); the worker now reads both.
 *   2. DATABASE_URL=... VAULT_KEK_PREVIOUS=<old> VAULT_KEK=<new> npm run vault:rotate
 *   3. wrangler secret delete VAULT_KEK_PREVIOUS
 *
 * Secrets themselves are never decrypted: only their data keys are unwrapped and wrapped again.
 * Stopping is safe; a rerun continues with what is left.
 */
import pg from 'pg';
import type { SqlPool } from '../src/storage/sql-client';
import { importKek, type KeyRing } from '../src/vault/crypto';
import { rotateVault } from '../src/vault/rotate';
import { progressBar } from '../src/cli/progress';

async function main(): Promise<void> {
  const { DATABASE_URL, VAULT_KEK, VAULT_KEK_PREVIOUS } = process.env;
  if (!DATABASE_URL || !VAULT_KEK || !VAULT_KEK_PREVIOUS) {
    throw new Error('set DATABASE_URL, VAULT_KEK (the new key) and VAULT_KEK_PREVIOUS (the key in use until now)');
  }
  const ring: KeyRing = { current: await importKek(VAULT_KEK), previous: await importKek(VAULT_KEK_PREVIOUS) };
  if (ring.current.version === ring.previous!.version) throw new Error('the new KEK needs a new version number (v2:..., v3:...)');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  let bar: ReturnType<typeof progressBar> | undefined;
  try {
    const result = await rotateVault(pool as unknown as SqlPool, ring, {
      onProgress: (p) => {
        bar ??= progressBar('re-wrapping vault secrets', p.total);
        bar.update(p.done + p.failed, p.failed ? `(${p.failed} failed)` : undefined);
      },
    });
    bar?.finish(`re-wrapped ${result.done} secret(s) under KEK v${ring.current.version}, ${result.failed} failed`);
    for (const f of result.failures) console.error(`  ${f.id}: ${f.reason}`);
    if (result.failed > 0) process.exitCode = 1;
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
