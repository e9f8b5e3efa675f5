/**
 * A refused request leaves no uncaught exception behind (issue 33, item 11): searches by an agent
 * key without `contexts:read` are each 403 `key_scope_missing`, and the worker log holds no
 * "Uncaught" line. The refusal abandons the search, whose database statement is on its way: the
 * runtime's own abort of that fetch printed its reason (the 403's AppError) as uncaught. Run on
 * the dev stack (`npm run dev`, wrangler dev), whose log shows such lines (Miniflare alone does
 * not), with the database 80 ms away so that every refusal lands while a statement is in flight.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { startDevStack } from '../support/dev-run';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe('a burst of refused searches', () => {
  it('each is 403 key_scope_missing, and the worker log has no Uncaught line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agw-refused-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const dev = await startDevStack(dir, cleanups, undefined, { DEV_DB_LATENCY_MS: '80' });
    const agent = await freshAgent(dev.stack.testnet);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'notes' } })).status).toBe(200);
    const key = await createKey(agent, ['contexts:write']);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => withKey(agent, key.key, '/memory/search', { method: 'POST', json: { query: 'invoice' } })),
    );
    const codes = answers.map((res) => `${res.status} ${(res.body as { error?: { code?: string } } | undefined)?.error?.code}`);
    expect(new Set(codes)).toEqual(new Set(['403 key_scope_missing']));
    // Give the abandoned statements time to end and the log its last lines.
    await new Promise((r) => setTimeout(r, 1_500));
    const log = await readFile(path.join(dir, 'testnet.log'), 'utf8');
    expect(log).toContain('"status":403');
    expect(log.split('\n').filter((line) => /\bUncaught\b|unhandled rejection/i.test(line))).toEqual([]);
  }, 180_000);
});
