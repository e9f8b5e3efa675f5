/**
 * An OAuth access token for one agent's MCP URL, through the gateway's public OAuth flow as an
 * MCP client and its user go through it (docs/security.md): dynamic client registration (a public
 * client, PKCE S256), the authorize page (its consent handle and the cookie that binds it to this
 * "browser"), the owner's approval message (its own purpose) signed as the page's script signs it, and the code exchanged at
 * the token endpoint with the agent's MCP URL as `resource` (RFC 8707). For the conformance driver
 * (server.ts), which never prints the token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { LocalAccount } from 'viem';

/** Where the code is "sent": never fetched (the approval answers the redirect URL as JSON). */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

async function postJson(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/** The token of `owner` for the agent whose MCP URL is `resource`, on the deployment at `baseUrl`. */
export async function oauthAccessToken(baseUrl: string, chainId: number, owner: LocalAccount, resource: string): Promise<string> {
  const registered = (await postJson(baseUrl, '/oauth/register', {
    redirect_uris: [REDIRECT_URI],
    client_name: 'MCP conformance driver',
    token_endpoint_auth_method: 'none',
  })) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: REDIRECT_URI,
    state: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
  });
  const page = await fetch(`${baseUrl}/oauth/authorize?${query}`, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  const html = await page.text();
  const handle = /data-handle="([^"]+)"/.exec(html)?.[1];
  const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  if (page.status !== 200 || handle === undefined) throw new Error(`authorize page: ${page.status}, no consent handle`);

  // What the page's script does: the approval message of this client and agent (its own purpose,
  // not a sign-in), signed by the owner, posted with the handle.
  const approval = (await postJson(baseUrl, '/oauth/authorize/message', {
    clientId: registered.client_id,
    resource,
    walletAddress: owner.address,
    chainId,
  })) as { nonce: string; message: string };
  const signature = await owner.signMessage({ message: approval.message });
  const approved = (await postJson(
    baseUrl,
    '/oauth/authorize',
    { handle, walletAddress: owner.address, chainId, nonce: approval.nonce, signature },
    { cookie },
  )) as { redirectTo: string };
  const code = new URL(approved.redirectTo).searchParams.get('code');
  if (!code) throw new Error('approval: no code in the redirect');

  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: registered.client_id,
      resource,
    }).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  const tokens = (await res.json()) as { access_token?: unknown; error?: unknown };
  if (res.status !== 200 || typeof tokens.access_token !== 'string') throw new Error(`token: ${res.status} ${String(tokens.error)}`);
  return tokens.access_token;
}
