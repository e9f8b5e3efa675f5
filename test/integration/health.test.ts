import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { call, deployment, errorCode } from '../support/http';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');

/** Runs one more worker against the same backends with some bindings replaced. */
async function workerWith(overrides: Record<string, string>, omit: string[] = []) {
  return startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    omit,
    bindings: { ...workerBindingsFor(stack), ...overrides },
  });
}

describe('GET /health', () => {
  it.each(['mainnet', 'testnet'] as const)('answers 200 on %s when Postgres and the chain answer', async (name) => {
    const res = await call(deployment(name).baseUrl, '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      chainId: deployment(name).chainId,
      checks: { database: { ok: true }, chain: { ok: true } },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 503 naming the chain when the RPC does not answer', async () => {
    const worker = await workerWith({ RPC_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const res = await call(worker.url, '/health');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ status: 'unavailable', checks: { chain: { ok: false }, database: { ok: true } } });
    } finally {
      await worker.dispose();
    }
  });

  it('answers 503 naming the chain when the RPC serves another chain', async () => {
    const worker = await workerWith({ RPC_URL: stack.mainnet.rpcUrl });
    try {
      const res = await call(worker.url, '/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ checks: { chain: { ok: false, problem: 'RPC serves chain 137, expected 80002' } } });
    } finally {
      await worker.dispose();
    }
  });

  it('answers 503 naming the database when Postgres does not answer', async () => {
    const worker = await workerWith({ DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${await freePort()}/agent_gateway` });
    try {
      const res = await call(worker.url, '/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'unavailable', checks: { database: { ok: false }, chain: { ok: true } } });
      expect(res.text).not.toContain('postgres:postgres');
    } finally {
      await worker.dispose();
    }
  });

  it('refuses to serve with a clear 500 when the configuration is invalid, naming variables but no values', async () => {
    const worker = await workerWith({ JWT__HASH: 'too-short-secret', CHAIN_ID: '1' }, ['RPC_URL']);
    try {
      const res = await call(worker.url, '/health');
      expect(res.status).toBe(500);
      expect(errorCode(res)).toBe('misconfigured');
      const problems = (res.body as { error: { details: { problems: string[] } } }).error.details.problems;
      expect(problems).toEqual(
        expect.arrayContaining([
          'JWT__HASH must be at least 32 bytes long',
          'CHAIN_ID must be one of 137, 80002',
          expect.stringMatching(/^RPC_URL /),
        ]),
      );
      expect(res.text).not.toContain('too-short-secret');
    } finally {
      await worker.dispose();
    }
  });
});
