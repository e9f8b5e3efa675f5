/**
 * The official MCP conformance suite's client auth scenarios, with the gateway as the client,
 * driven through its public API (test/support/oauth-conformance-driver.ts): metadata discovery
 * variants, CIMD, the three token endpoint auth methods, pre-registration, scope selection,
 * step-up and its retry limit, the 2025-03-26 fallbacks. The scenario servers run on loopback,
 * so the worker has the local stack's loopback switch.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { loopbackWorker } from '../support/loopback-worker';
import { agentPath } from '../support/login';

const stack = inject('stack');
let worker: Awaited<ReturnType<typeof loopbackWorker>>;
let owner: TestAgent;

beforeAll(async () => {
  worker = await loopbackWorker(stack);
  owner = await freshAgent(worker.deployment);
});

afterAll(async () => {
  await worker?.dispose();
});

/** Runs one scenario; resolves with the suite's output and its exit code. */
function scenario(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'npx',
      [
        'conformance',
        'client',
        '--command',
        'node --import tsx test/support/oauth-conformance-driver.ts',
        '--scenario',
        name,
        '--timeout',
        '30000',
      ],
      {
        env: {
          ...process.env,
          AGW_URL: worker.url,
          AGW_TOKEN: owner.token,
          AGW_AGENT: agentPath(owner.collection, owner.tokenId, ''),
        },
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The suite's summary line: `Passed: 14/14, 0 failed, 0 warnings`. */
function summary(output: string): { passed: number; total: number; failed: number; warnings: number } | undefined {
  const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  return m ? { passed: Number(m[1]), total: Number(m[2]), failed: Number(m[3]), warnings: Number(m[4]) } : undefined;
}

const SCENARIOS = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
];

describe('the conformance suite, client auth scenarios', () => {
  it.each(SCENARIOS)(
    '%s',
    async (name) => {
      const { output } = await scenario(name);
      expect(summary(output)?.failed, output).toBe(0);
    },
    60_000,
  );
});
