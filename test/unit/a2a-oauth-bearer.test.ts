/**
 * bearer() with OAuth access tokens on an agent's two doors: the resource a request is for comes
 * from its route (oauthResourceOf), so a token is checked against the MCP URL on `POST …/mcp` and
 * against the A2A URL on `POST …/a2a`, and refused everywhere else before any lookup.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bearer, type OAuthTokenCheck } from '../../src/access/bearer';
import { AppError } from '../../src/errors';
import { oauthResourceOf } from '../../src/oauth';
import type { AppBindings } from '../../src/types';

const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ORIGIN = 'http://gateway.test';
const agentUrl = (tokenId: number, door: string) => `${ORIGIN}/agent/${COLLECTION}/${tokenId}/${door}`;

/** A token is live for exactly one resource, as the authorization server's `validateToken` says. */
const issued = new Map([
  ['w.c.7:mcpgrant:secret', agentUrl(7, 'mcp')],
  ['w.c.7:a2agrant:secret', agentUrl(7, 'a2a')],
]);

function app() {
  const asked: string[] = [];
  const check: OAuthTokenCheck = {
    pattern: /^[^\s:]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/,
    resourceOf: oauthResourceOf,
    walletOf: async (_env, _origin, resource, token) => {
      asked.push(resource);
      return issued.get(token) === resource ? { wallet: WALLET, clientId: 'client' } : null;
    },
  };
  const hono = new Hono<AppBindings>();
  hono.onError((err, c) =>
    err instanceof AppError ? c.json({ code: err.code }, err.status, err.headers) : c.json({ code: 'internal' }, 500),
  );
  hono.use('/agent/*', bearer({ keyScope: () => undefined, oauth: check }));
  hono.all('/agent/*', (c) => c.json({ wallet: c.var.wallet }));
  const send = (path: string, token: string, method = 'POST') =>
    hono.request(`${ORIGIN}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  return { send, asked };
}

describe('an OAuth access token on the A2A route', () => {
  it('is accepted when it was issued for that agent’s A2A URL, checked against that URL', async () => {
    const { send, asked } = app();
    const res = await send(`/agent/${COLLECTION.toLowerCase()}/7/a2a`, 'w.c.7:a2agrant:secret');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ wallet: WALLET });
    expect(asked).toEqual([agentUrl(7, 'a2a')]);
  });

  it("refuses the same agent's MCP token there, and the A2A token on the MCP route: 401 invalid_token naming the resource's metadata", async () => {
    const { send } = app();
    const onA2a = await send(`/agent/${COLLECTION}/7/a2a`, 'w.c.7:mcpgrant:secret');
    expect(onA2a.status).toBe(401);
    expect(await onA2a.json()).toEqual({ code: 'invalid_token' });
    expect(onA2a.headers.get('www-authenticate')).toContain(
      `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/agent/${COLLECTION}/7/a2a"`,
    );
    const onMcp = await send(`/agent/${COLLECTION}/7/mcp`, 'w.c.7:a2agrant:secret');
    expect(onMcp.status).toBe(401);
    expect(onMcp.headers.get('www-authenticate')).toContain(`/agent/${COLLECTION}/7/mcp"`);
    // The MCP token still opens the MCP route.
    expect((await send(`/agent/${COLLECTION}/7/mcp`, 'w.c.7:mcpgrant:secret')).status).toBe(200);
  });

  it("refuses another agent's A2A token", async () => {
    const { send } = app();
    const res = await send(`/agent/${COLLECTION}/8/a2a`, 'w.c.7:a2agrant:secret');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 'invalid_token' });
  });

  it('is refused on the card, on other routes and on a GET of the A2A path, before any lookup', async () => {
    const { send, asked } = app();
    for (const [path, method] of [
      [`/agent/${COLLECTION}/7/.well-known/agent-card.json`, 'GET'],
      [`/agent/${COLLECTION}/7/contexts/keys`, 'GET'],
      [`/agent/${COLLECTION}/7/a2a`, 'GET'],
      ['/agent/0x12/7/a2a', 'POST'],
    ] as const) {
      const res = await send(path, 'w.c.7:a2agrant:secret', method);
      expect(res.status, path).toBe(401);
      expect(await res.json()).toEqual({ code: 'invalid_token' });
    }
    expect(asked).toEqual([]);
  });
});
