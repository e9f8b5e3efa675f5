/**
 * The local stand-in for Neon's proxy refuses browsers: any request with an `Origin` header, so a
 * web page open in the developer's browser cannot reach the dev database through it. The worker's
 * driver sends none and keeps working.
 */
import { describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { call, deployment } from '../support/http';

const stack = inject('stack');
const testnet = deployment('testnet');
const postgres = new URL(stack.databaseUrl);
const tunnelUrl = `ws://${stack.bridgeProxy}/v1?address=${postgres.hostname}:${postgres.port}`;

/** Opens a WebSocket to the bridge: 'open', or the HTTP status of the refused upgrade. */
function upgrade(headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(tunnelUrl, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
  });
}

function postSql(headers: Record<string, string>) {
  return fetch(`http://${stack.bridgeProxy}/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'neon-connection-string': stack.databaseUrl, ...headers },
    body: JSON.stringify({ query: 'select 1 as one', params: [] }),
  });
}

describe('the local WebSocket bridge', () => {
  it('refuses a WebSocket upgrade carrying an Origin (403) and accepts one without', async () => {
    expect(await upgrade({ Origin: 'https://evil.example' })).toBe(403);
    expect(await upgrade({ Origin: 'null' })).toBe(403);
    expect(await upgrade({ Origin: 'http://127.0.0.1:8788' })).toBe(403);
    expect(await upgrade({})).toBe('open');
  });

  it('refuses POST /sql carrying an Origin (403, nothing run) and answers one without', async () => {
    const refused = await postSql({ Origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain('one');
    const answered = await postSql({});
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ rows: [['1']] });
  });

  it('still serves the worker: /health reaches the database through it', async () => {
    const res = await call(testnet.baseUrl, '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ checks: { database: { ok: true } } });
  });
});
