import { chainClient } from '../chain/client';
import { loadConfig } from '../config';
import type { Env } from '../env';
import { scrubLogLine } from '../scrub';
import { openDatabase, type Database } from '../storage/db';
import { runCleanup } from './cleanup';

/**
 * The Cron Trigger (`[triggers] crons` in the wrangler files): runs the clean-up once, logs what
 * it did as one JSON line, and fails the invocation (so the dashboard shows it) when it fails.
 */
export async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  let db: Database | undefined;
  try {
    const config = loadConfig(env);
    db = openDatabase(config);
    const report = await runCleanup({ db, kv: env.NONCES, chainId: config.chainId, chain: chainClient(config) });
    console.log(JSON.stringify({ level: 'info', cron: controller.cron, cleanup: report }));
  } catch (err) {
    // A ConfigError names variables, never their values; anything else is redacted.
    const reason = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
    console.error(JSON.stringify({ level: 'error', cron: controller.cron, cleanup: 'failed', reason: scrubLogLine(reason.slice(0, 500)) }));
    throw err;
  } finally {
    if (db) ctx.waitUntil(db.end());
  }
}
