/**
 * DNS-rebinding protection of the agent's MCP server: a foreign `Host` or `Origin` is 403 before
 * any credential is read; the gateway's own origin, one of `MCP_ALLOWED_ORIGINS`, or none at all
 * passes. Against a testnet worker in workerd (the local stack: loopback names also pass), with
 * `Host` set by node:http as a browser on a rebound name would send it; and the production rule
 * (no loopback) on the parsed configuration.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { parseConfig } from '../../src/config';
import { hostAllowed, originAllowed } from '../../src/mcp-server/rebinding';
import { freshAgent, type TestAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { mcpUrl } from '../support/agent-mcp';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const ALLOWED = 'https://app.example.com';
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let agent: TestAgent;
let key: string;

beforeAll(async () => {
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), MCP_ALLOWED_ORIGINS: `${ALLOWED}, https://other.example.org:8443` },
  });
  const deployment: DeploymentInfo = { ...stack.testnet, baseUrl: worker.url };
  agent = await freshAgent(deployment);
  key = (await createKey(agent, ['mcp'])).key;
});

afterAll(async () => {
  await worker?.dispose();
});

/** One raw POST of `tools/list` with these headers (Host included, which fetch would not let us set). */
function post(headers: Record<string, string>, credential: string | undefined = key): Promise<{ status: number; body: any }> {
  const url = mcpUrl(worker.url, agent).href;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(body)),
          ...(credential ? { authorization: `Bearer ${credential}` } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('DNS-rebinding protection of the MCP route', () => {
  it('a foreign Host is 403 host_not_allowed, before the credential is looked at', async () => {
    for (const credential of [key, undefined]) {
      const res = await post({ host: 'evil.example.com' }, credential);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('host_not_allowed');
    }
    const port = await post({ host: `evil.example.com:${new URL(worker.url).port}` });
    expect(port.status).toBe(403);
  });

  it('a foreign Origin is 403 origin_not_allowed, before the credential is looked at', async () => {
    for (const origin of ['https://evil.example.com', 'null', `${ALLOWED}.evil.example`, 'http://app.example.com']) {
      const res = await post({ origin });
      expect(res.status, origin).toBe(403);
      expect(res.body.error.code).toBe('origin_not_allowed');
    }
    const anonymous = await post({ origin: 'https://evil.example.com' }, undefined);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.error.code).toBe('origin_not_allowed');
  });

  it('an Origin of MCP_ALLOWED_ORIGINS, a loopback one on the local stack, or none is answered', async () => {
    const cases: Record<string, string>[] = [
      { origin: ALLOWED },
      { origin: 'https://other.example.org:8443' },
      { origin: new URL(worker.url).origin },
      { origin: 'http://localhost:6274' },
      {},
    ];
    for (const headers of cases) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.body.result.tools.length).toBeGreaterThan(0);
    }
  });

  it('a deployment (not the local stack) takes its own host and origin only, and the listed origins', () => {
    const config = parseConfig({
      CHAIN_ID: '80002',
      RPC_URL: 'https://rpc.example',
      SIWE_DOMAIN: 'gateway.example.org',
      SIWE_URI: 'https://gateway.example.org',
      DATABASE_URL: 'postgres://u:p@db.example/gateway',
      JWT__HASH: 'x'.repeat(32),
      VAULT_KEK: `v1:${Buffer.alloc(32).toString('base64')}`,
      MCP_ALLOWED_ORIGINS: ALLOWED,
    });
    expect(config.dev.localStack).toBe(false);
    expect(hostAllowed('gateway.example.org', config)).toBe(true);
    expect(hostAllowed('GATEWAY.example.org', config)).toBe(true);
    for (const host of ['localhost:8787', '127.0.0.1', 'evil.example.com', 'gateway.example.org.evil.example']) {
      expect(hostAllowed(host, config), host).toBe(false);
    }
    expect(originAllowed('https://gateway.example.org', config)).toBe(true);
    expect(originAllowed(ALLOWED, config)).toBe(true);
    for (const origin of ['http://localhost:6274', 'http://gateway.example.org', 'null', 'https://evil.example.com']) {
      expect(originAllowed(origin, config), origin).toBe(false);
    }
  });

  it('MCP_ALLOWED_ORIGINS with anything but origins is a configuration error', () => {
    for (const value of ['app.example.com', 'https://app.example.com/path', 'ftp://files.example']) {
      expect(() =>
        parseConfig({
          CHAIN_ID: '80002',
          RPC_URL: 'https://rpc.example',
          SIWE_DOMAIN: 'gateway.example.org',
          SIWE_URI: 'https://gateway.example.org',
          DATABASE_URL: 'postgres://u:p@db.example/gateway',
          JWT__HASH: 'x'.repeat(32),
          VAULT_KEK: `v1:${Buffer.alloc(32).toString('base64')}`,
          MCP_ALLOWED_ORIGINS: value,
        }),
      ).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
  });
});
