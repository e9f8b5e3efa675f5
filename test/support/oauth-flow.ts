/**
 * Driving the gateway's OAuth flow against loopback tool servers (oauth-tool-server.ts) the way a
 * browser would: open the authorize URL (the server's host is routed to its loopback port), follow
 * its redirect back to the gateway's callback, read the page.
 */
import { expect } from 'vitest';
import type { TestAgent } from './agent';
import { call, type JsonResponse } from './http';
import { agentPath } from './login';
import type { OAuthToolServer } from './oauth-tool-server';

export interface Gateway {
  url: string;
}

export function gatewayCall<T = any>(
  gw: Gateway,
  who: TestAgent,
  rest: string,
  init: Parameters<typeof call>[2] = {},
): Promise<JsonResponse<T>> {
  return call<T>(gw.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}

/** Registers `server` as an OAuth connection; returns the answer (200 expected by most callers). */
export function addOAuth(gw: Gateway, who: TestAgent, server: OAuthToolServer, auth: Record<string, unknown> = {}) {
  return gatewayCall(gw, who, '/mcp/connection', { method: 'POST', json: { url: `${server.base}/mcp`, auth: { type: 'oauth', ...auth } } });
}

/** Opens `authorizeUrl` at the loopback server and returns the callback URL it redirects to. */
export async function approve(server: OAuthToolServer, authorizeUrl: string): Promise<string> {
  const url = new URL(authorizeUrl);
  expect(url.origin).toBe(server.base);
  const res = await fetch(`http://127.0.0.1:${server.port}${url.pathname}${url.search}`, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  return res.headers.get('location') ?? '';
}

/** Follows a callback URL as the browser would; returns status and page. */
export async function callback(url: string): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

/** The whole browser round trip; expects the ready page. */
export async function authorize(server: OAuthToolServer, authorizeUrl: string): Promise<void> {
  const page = await callback(await approve(server, authorizeUrl));
  expect(page.status, page.html).toBe(200);
  expect(page.html).toContain('Tool server authorized');
}

/** Registers and authorizes; returns the connection id. */
export async function connectAuthorized(
  gw: Gateway,
  who: TestAgent,
  server: OAuthToolServer,
  auth: Record<string, unknown> = {},
): Promise<string> {
  const added = await addOAuth(gw, who, server, auth);
  expect(added.status, added.text).toBe(200);
  await authorize(server, added.body.authorizeUrl);
  return added.body.id;
}
