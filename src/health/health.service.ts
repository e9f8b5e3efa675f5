import type { PublicClient } from 'viem';
import type { Database } from '../storage/db';

export interface DependencyCheck {
  ok: boolean;
  latencyMs: number;
  /** Why the part is not healthy; a fixed phrase, never a driver's message. */
  problem?: string;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  chainId: number;
  checks: { database: DependencyCheck; chain: DependencyCheck };
}

const CHECK_TIMEOUT_MS = 3_000;

async function timed(run: () => Promise<string | undefined>): Promise<DependencyCheck> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('did not answer in time'), CHECK_TIMEOUT_MS);
  });
  const problem = await Promise.race([run().catch(() => 'did not answer'), timeout]);
  if (timer !== undefined) clearTimeout(timer);
  const latencyMs = Date.now() - started;
  return problem ? { ok: false, latencyMs, problem } : { ok: true, latencyMs };
}

/** Checks that Postgres answers a query and the chain RPC answers with the deployment's chain id. */
export async function checkHealth(deps: { db: Database; chain: PublicClient; chainId: number }): Promise<HealthReport> {
  const [database, chain] = await Promise.all([
    timed(async () => {
      // One statement over HTTP, as the hot paths use: no connection to open per health check.
      await deps.db.sql.query('select 1');
      return undefined;
    }),
    timed(async () => {
      const id = await deps.chain.getChainId();
      return id === deps.chainId ? undefined : `RPC serves chain ${id}, expected ${deps.chainId}`;
    }),
  ]);
  return {
    status: database.ok && chain.ok ? 'ok' : 'unavailable',
    chainId: deps.chainId,
    checks: { database, chain },
  };
}
