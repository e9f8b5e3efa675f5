/**
 * `npm run dev` across runs (issue 18), for real: a second run on the same DEV_DIR while one runs
 * names the running stack and exits 1, touching nothing; a restart continues the same chains (anvil
 * state files under DEV_DIR/chains), so the demo collection keeps its address and an agent keeps
 * its owner and its memory; `npm run dev -- --reset` starts clean (database and chains).
 * Slow (three stack starts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeDevPorts, spawnDev } from '../../scripts/lib/stack-processes';
import { mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { startDevStack } from '../support/dev-run';
import { call } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, sql } from '../support/pg';
import { removePostgresData } from '../../scripts/lib/postgres-placement';

const TIMEOUT_MS = 240_000;
let devDir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-dev-restart-'));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await closePg();
  // The data a root run placed outside this private directory (postgres links there) goes too.
  await removePostgresData(path.join(devDir, 'postgres'));
  await rm(devDir, { recursive: true, force: true });
});

async function ownerOf(rpcUrl: string, collection: string, tokenId: bigint): Promise<string | null> {
  const data = `0x6352211e${tokenId.toString(16).padStart(64, '0')}`;
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: collection, data }, 'latest'] }),
  });
  const body = (await res.json()) as { result?: string };
  return body.result && body.result.length >= 66 ? `0x${body.result.slice(-40)}` : null;
}

describe('npm run dev across runs', () => {
  it(
    'a second run on the same DEV_DIR exits 1 naming the running stack; a restart keeps chains, owners and memory; --reset starts clean',
    async () => {
      const owner: TestAccount = newWallet();
      const first = await startDevStack(devDir, cleanups);
      const { testnet } = first.stack;
      const tokenId = await mintFreshAgent(testnet, owner.address);
      const token = await login(testnet, owner);
      const created = await call(testnet.baseUrl, agentPath(testnet.collection, tokenId, '/context'), {
        method: 'POST',
        token,
        json: { key: 'kept-memory' },
      });
      expect(created.status, created.text).toBe(200);

      // A second run, other ports, same DEV_DIR: refused, and the first keeps serving.
      const second = spawnDev(devDir, await freeDevPorts());
      const code = await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
      expect(code, second.output()).toBe(1);
      expect(second.output()).toContain('a stack is already running');
      expect(second.output()).toContain(testnet.baseUrl);
      expect((await fetch(`${testnet.baseUrl}/health`)).status).toBe(200);
      await first.stop();

      // A restart continues the same chains: same collection, same owner, same memory.
      const again = await startDevStack(devDir, cleanups);
      expect(again.stack.testnet.collection).toBe(testnet.collection);
      expect(again.stack.mainnet.collection).toBe(first.stack.mainnet.collection);
      expect((await ownerOf(again.stack.testnet.rpcUrl, testnet.collection, tokenId))?.toLowerCase()).toBe(owner.address.toLowerCase());
      const keys = await call(again.stack.testnet.baseUrl, agentPath(testnet.collection, tokenId, '/contexts/keys'), {
        token: await login(again.stack.testnet, owner),
      });
      expect(keys.status, keys.text).toBe(200);
      expect(keys.text).toContain('kept-memory');
      await again.stop();

      // --reset: fresh chains and an empty database.
      const clean = await startDevStack(devDir, cleanups, undefined, {}, ['--reset']);
      expect(clean.run.output()).toContain('--reset');
      expect(await ownerOf(clean.stack.testnet.rpcUrl, clean.stack.testnet.collection, tokenId)).toBeNull();
      expect(await sql(clean.stack.databaseUrl, 'select 1 from gateway.agent_storage')).toEqual([]);
      await closePg();
      await clean.stop();
    },
    TIMEOUT_MS,
  );
});
