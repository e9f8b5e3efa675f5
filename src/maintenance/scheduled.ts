import { loadConfig } from '../config';
import type { Env } from '../env';
import { redact } from '../errors';
import { openDatabase } from '../storage/db';
import { runCleanup } from './cleanup';

/**
 * The Cron Trigger (`[triggers] crons` in the wrangler files): runs the clean-up once, logs what
 * it did as one JSON line, and fails the invocation (so the dashboard shows it) when it fails.
 */
export async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  const config = loadConfig(env);
  const db = openDatabase(config);
  try {
    const report = await runCleanup({ db, kv: env.NONCES, chainId: config.chainId });
    console.log(JSON.stringify({ level: 'info', cron: controller.cron, cleanup: report }));
  } catch (err) {
    const reason = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
    console.error(JSON.stringify({ level: 'error', cron: controller.cron, cleanup: 'failed', reason: redact(reason.slice(0, 300)) }));
    throw err;
  } finally {
    ctx.waitUntil(db.end());
  }
}
