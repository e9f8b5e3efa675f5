/**
 * OAuth for MCP clients end to end in headless Chromium (docs/keys-and-automation.md): an injected test wallet (a
 * `window.ethereum` shim whose accounts and signatures come from a viem local account in the
 * test, through page.exposeFunction) on the real authorize page, against the whole `npm run dev`
 * stack. Register a client, open the authorize URL and Deny (access_denied at the redirect URI), open it again, connect and sign, receive the code at a
 * loopback redirect URI, exchange it with PKCE, call the agent's MCP route, refresh, see the
 * token refused on another agent's MCP URL, and after a transfer of the agent, 403 on the next
 * call. Under the page's Content-Security-Policy with no console error or page error.
 *
 * Run with `npm run test:browser` (not part of `npm test`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { type Address, getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintAgent, transferAgent } from '../../scripts/lib/contracts';
import { axeEverywhere } from './axe';
import { startBrowserStack, type BrowserStack } from './stack';
import { installTestWallet } from './wallet';

let env: BrowserStack | undefined;
let callbackServer: Server | undefined;
let callbackUrl = '';
const callbacks: ((url: URL) => void)[] = [];

beforeAll(async () => {
  env = await startBrowserStack('oauth');
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', callbackUrl);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    for (const resolve of callbacks.splice(0)) resolve(url);
  });
  await new Promise<void>((resolve) => callbackServer!.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
});

afterAll(async () => {
  await new Promise((resolve) => (callbackServer ? callbackServer.close(resolve) : resolve(undefined)));
  await env?.stop();
});

const nextCallback = () => new Promise<URL>((resolve) => callbacks.push(resolve));

async function json(res: Response): Promise<Record<string, any>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return { text };
  }
}

/** A JSON-RPC request to an agent's MCP route, as an MCP client sends it (stateless: no session). */
async function mcp(url: string, token: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

/** Opens the authorize URL in a page whose `window.ethereum` is the test wallet, clicks, and returns the redirect. */
async function authorizeInBrowser(context: BrowserContext, url: string, wallet: ReturnType<typeof privateKeyToAccount>) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page: ${err.message}`));
  await installTestWallet(page, wallet);
  const res = await page.goto(url, { waitUntil: 'load' });
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'nonce-/);
  const text = (await page.textContent('body')) ?? '';
  problems.push(...(await axeEverywhere(page, 'the authorize page', 'light')));
  const redirected = nextCallback();
  await page.click('#sign');
  const callback = await Promise.race([
    redirected,
    page.waitForSelector('#status.error', { timeout: 30_000 }).then(async (el) => {
      throw new Error(`the page says: ${await el.textContent()}`);
    }),
  ]);
  // Closing a page that ended on the loopback callback can take Chromium two minutes (seen with
  // the callback server's kept-alive connection); its work is done, the browser closes at the end.
  await Promise.race([page.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  return { callback, text, problems };
}

describe('OAuth for an MCP client, in headless Chromium with an injected wallet', () => {
  it('register, authorize with a SIWE signature, token, MCP call, refresh, another agent refused, transfer -> 403', async () => {
    const deployment = env!.stack.testnet;
    const funded = env!.stack.accounts[0]!.privateKey as Hex;
    const key = generatePrivateKey();
    const wallet = privateKeyToAccount(key);
    const collection = getAddress(deployment.collection);
    const tokenA = BigInt(Date.now()) * 1000n + 1n;
    const tokenB = tokenA + 1n;
    await mintAgent(deployment.rpcUrl, funded, collection, wallet.address, tokenA);
    await mintAgent(deployment.rpcUrl, funded, collection, wallet.address, tokenB);
    const origin = new URL(deployment.baseUrl).origin;
    const mcpA = `${origin}/agent/${collection}/${tokenA}/mcp`;
    const mcpB = `${origin}/agent/${collection}/${tokenB}/mcp`;

    // Discovery, as a client does it: the 401, the resource's metadata, the server's.
    const challenge401 = await mcp(mcpA, 'x:y:z', 'tools/list');
    expect(challenge401.status).toBe(401);
    const prm = await json(await fetch(`${origin}/.well-known/oauth-protected-resource/agent/${collection}/${tokenA}/mcp`));
    expect(prm.resource).toBe(mcpA);
    const as = await json(await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`));

    const registered = await fetch(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [callbackUrl], client_name: 'Browser test client', token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const clientId = (await json(registered)).client_id as string;

    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(as.authorization_endpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callbackUrl,
      state: 'browser-state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpA,
      scope: 'mcp',
    }))
      url.searchParams.set(name, value);
    // A request the page cannot send back (no resource): an error page with the page's own look, on a phone too.
    const noResource = new URL(url);
    noResource.searchParams.delete('resource');
    const errorPage = await env!.context.newPage();
    const errorProblems: string[] = [];
    errorPage.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errorProblems.push(`console: ${msg.text()}`);
    });
    const refused = await errorPage.goto(noResource.toString(), { waitUntil: 'load' });
    expect(refused?.status()).toBe(400);
    expect(refused?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'nonce-/);
    expect(await errorPage.getByRole('main').getByRole('heading', { name: 'Authorization failed' }).count()).toBe(1);
    expect(await errorPage.textContent('main')).toContain('invalid_target');
    expect(await errorPage.locator('meta[name="viewport"]').getAttribute('content')).toBe('width=device-width, initial-scale=1');
    const bodyStyle = async () =>
      errorPage.evaluate(() => {
        type Style = { maxWidth: string; backgroundColor: string };
        const scope = globalThis as unknown as { getComputedStyle(e: unknown): Style; document: { body: unknown } };
        const style = scope.getComputedStyle(scope.document.body);
        return { maxWidth: style.maxWidth, background: style.backgroundColor };
      });
    await errorPage.emulateMedia({ colorScheme: 'light' });
    expect(await bodyStyle()).toEqual({ maxWidth: '576px', background: 'rgb(255, 255, 255)' });
    await errorPage.emulateMedia({ colorScheme: 'dark' });
    expect((await bodyStyle()).background).toBe('rgb(17, 20, 24)');
    errorProblems.push(...(await axeEverywhere(errorPage, 'the error page', 'light')));
    expect(errorProblems).toEqual([]);
    await errorPage.close();

    // Deny: the client hears access_denied at its registered redirect URI, with its state and iss.
    const denyPage = await env!.context.newPage();
    const denyProblems: string[] = [];
    denyPage.on('pageerror', (err) => denyProblems.push(`page: ${err.message}`));
    expect((await denyPage.goto(url.toString(), { waitUntil: 'load' }))?.status()).toBe(200);
    denyProblems.push(...(await axeEverywhere(denyPage, 'the authorize page with Deny', 'dark')));
    const deniedCallback = nextCallback();
    await denyPage.getByRole('button', { name: 'Deny' }).click();
    const denied = await deniedCallback;
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('browser-state');
    expect(denied.searchParams.get('iss')).toBe(origin);
    expect(denied.searchParams.get('code')).toBeNull();
    expect(denyProblems).toEqual([]);
    await Promise.race([denyPage.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);

    const { callback, text, problems } = await authorizeInBrowser(env!.context, url.toString(), wallet);
    expect(text).toContain('Browser test client');
    expect(text).toContain(`#${tokenA}`);
    expect(callback.searchParams.get('state')).toBe('browser-state');
    expect(callback.searchParams.get('iss')).toBe(origin);
    const code = callback.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    expect(problems).toEqual([]);

    const token = async (form: Record<string, string>) => {
      const res = await fetch(as.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, body: await json(res) };
    };
    const first = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackUrl,
      code_verifier: verifier,
      client_id: clientId,
      resource: mcpA,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.expires_in).toBe(600);

    const listed = await mcp(mcpA, first.body.access_token, 'tools/list');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect((listed.body.result.tools as { name: string }[]).map((t) => t.name)).toContain('ask');

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: clientId,
      resource: mcpA,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await mcp(mcpA, refreshed.body.access_token, 'tools/list')).status).toBe(200);

    const onB = await mcp(mcpB, refreshed.body.access_token, 'tools/list');
    expect(onB.status).toBe(401);
    expect(onB.body.error.code).toBe('invalid_token');
    expect(onB.headers.get('www-authenticate')).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/agent/${collection}/${tokenB}/mcp"`,
    );

    await fetch(deployment.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [wallet.address, '0x56BC75E2D63100000'] }),
    });
    const buyer = privateKeyToAccount(generatePrivateKey()).address as Address;
    await transferAgent(deployment.rpcUrl, key, collection, wallet.address, buyer, tokenA);
    const afterSale = await mcp(mcpA, refreshed.body.access_token, 'tools/list');
    expect(afterSale.status).toBe(403);
    expect(afterSale.body.error.code).toBe('not_owner');
  });
});
