/**
 * A burst of refused requests leaves no unhandled rejection behind (issue 33, item 11): 200
 * parallel searches (memory search and the key list's search, half each) by an agent key without
 * `contexts:read` are each 403 `key_scope_missing`, and the worker's own log (workerd's output,
 * which Miniflare captures) holds no "Uncaught" line. Workers of their own (so each log holds only this file's requests): one as
 * the harness runs it, and one whose database and chain answer late (statements held a few
 * milliseconds at random, the chain 30 ms), as a deployment's do, so the refusal lands while the
 * search's statements are on their way.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { deployment } from '../support/http';
import { type RpcProxy, startRpcProxy } from '../support/rpc-proxy';
import { type SlowSql, startSlowSql } from '../support/slow-sql';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
let dir: string;
let rpc: RpcProxy;
let slowSql: SlowSql;
const workers: { name: string; logFile: string; worker: Awaited<ReturnType<typeof startMiniflare>> }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agw-uncaught-'));
  rpc = await startRpcProxy(testnet.rpcUrl, { latencyMs: 30 });
  slowSql = await startSlowSql(stack.bridgeProxy, { chunkBytes: 64 * 1024, everyMs: 1, holdMs: () => Math.floor(Math.random() * 25) });
  const start = async (name: string, bindings: Record<string, string>) => {
    const logFile = path.join(dir, `${name}.log`);
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), ...bindings },
      logFile,
    });
    workers.push({ name, logFile, worker });
  };
  await Promise.all([start('plain', {}), start('late', { RPC_URL: rpc.url, DB_WS_PROXY: slowSql.proxy })]);
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.worker.dispose()));
  await rpc?.close();
  await slowSql?.close();
  await rm(dir, { recursive: true, force: true });
});

const uncaughtLines = async (logFile: string) =>
  (await readFile(logFile, 'utf8').catch(() => '')).split('\n').filter((line) => /uncaught|unhandled/i.test(line));

describe('a burst of refused requests', () => {
  it.each(['plain', 'late'])(
    '200 parallel searches by a key without contexts:read (%s worker): each 403 key_scope_missing, no Uncaught line in the log',
    async (name) => {
      const { worker, logFile } = workers.find((w) => w.name === name)!;
      const on: DeploymentInfo = { ...testnet, baseUrl: worker.url };
      const agent = await freshAgent(on);
      expect((await agent.call('/context', { method: 'POST', json: { key: 'notes' } })).status).toBe(200);
      const messages = Array.from({ length: 50 }, (_, i) => ({ role: 'user', message: `invoice ${i} for the order` }));
      const seeded = await agent.call('/context/notes/messages', { method: 'POST', json: { messages } });
      expect(seeded.status, seeded.text).toBe(200);
      const key = await createKey(agent, ['contexts:write']);
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 2 === 0
            ? withKey(agent, key.key, '/memory/search', { method: 'POST', json: { query: 'invoice' } })
            : withKey(agent, key.key, '/contexts/keys?search=not&elementsPerPage=10'),
        ),
      );
      const byStatus = new Map<string, number>();
      for (const res of answers) {
        const label = `${res.status} ${(res.body as { error?: { code?: string } } | undefined)?.error?.code ?? ''}`;
        byStatus.set(label, (byStatus.get(label) ?? 0) + 1);
      }
      expect(Object.fromEntries(byStatus)).toEqual({ '403 key_scope_missing': 200 });
      // The log is written as workerd prints it: give the last lines a moment to land.
      await new Promise((r) => setTimeout(r, 500));
      expect(await uncaughtLines(logFile)).toEqual([]);
    },
    60_000,
  );
});
