import { createHash, randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { TestAccount } from './chain';
import { call, type JsonResponse } from './http';
import type { DeploymentInfo } from './stack-info';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The MCP URL (RFC 8707 resource) of an agent, as the gateway spells it. */
export function mcpUrl(deployment: DeploymentInfo, collection: string, tokenId: bigint): string {
  return `${deployment.baseUrl}/agent/${getAddress(collection)}/${tokenId}/mcp`;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(deployment: DeploymentInfo, metadata: Record<string, unknown> = {}): Promise<JsonResponse<any>> {
  return call(deployment.baseUrl, '/oauth/register', {
    method: 'POST',
    json: { redirect_uris: [REDIRECT_URI], client_name: 'Test MCP client', token_endpoint_auth_method: 'none', ...metadata },
  });
}

export async function publicClient(deployment: DeploymentInfo): Promise<string> {
  const res = await registerClient(deployment);
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body.client_id as string;
}

export function authorizeUrl(deployment: DeploymentInfo, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `${deployment.baseUrl}/oauth/authorize?${query}`;
}

/** GET the authorize page; returns the consent handle and the cookie that binds it to "this browser". */
export interface AuthorizePage {
  handle: string;
  cookie: string;
  /** The client id and resource the page names (its data attributes), which the approval message names. */
  clientId: string;
  resource: string;
}

const unescapeHtml = (value: string) => value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

export async function openAuthorizePage(url: string): Promise<AuthorizePage & { res: Response; html: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  const html = await res.text();
  const attribute = (name: string) => unescapeHtml(new RegExp(`data-${name}="([^"]+)"`).exec(html)?.[1] ?? '');
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  return { res, html, handle: attribute('handle'), cookie, clientId: attribute('client-id'), resource: attribute('resource') };
}

/** POST /oauth/authorize/message: the approval message of the page's client and agent, for `wallet`. */
export async function approvalMessage(
  deployment: DeploymentInfo,
  page: Pick<AuthorizePage, 'clientId' | 'resource'>,
  wallet: string,
): Promise<{ nonce: string; message: string }> {
  const res = await call<{ nonce: string; message: string }>(deployment.baseUrl, '/oauth/authorize/message', {
    method: 'POST',
    json: { clientId: page.clientId, resource: page.resource, walletAddress: wallet, chainId: deployment.chainId },
  });
  if (res.status !== 200) throw new Error(`approval message: ${res.status} ${res.text}`);
  return res.body;
}

/** Posts an approval: the handle, with its cookie, and a signature over `signed` (nonce and message). */
export function postApproval(
  deployment: DeploymentInfo,
  page: Pick<AuthorizePage, 'handle' | 'cookie'>,
  wallet: string,
  signed: { nonce: string; signature: string },
): Promise<JsonResponse<{ redirectTo: string }>> {
  return call(deployment.baseUrl, '/oauth/authorize', {
    method: 'POST',
    headers: { cookie: page.cookie },
    json: { handle: page.handle, walletAddress: wallet, chainId: deployment.chainId, nonce: signed.nonce, signature: signed.signature },
  });
}

/** What the page's script does: ask for the approval message, sign it, post it with the handle. */
export async function approve(
  deployment: DeploymentInfo,
  page: AuthorizePage,
  signer: TestAccount,
): Promise<JsonResponse<{ redirectTo: string }>> {
  const approval = await approvalMessage(deployment, page, signer.address);
  const signature = await signer.signMessage({ message: approval.message });
  return postApproval(deployment, page, signer.address, { nonce: approval.nonce, signature });
}

export function tokenRequest(deployment: DeploymentInfo, form: Record<string, string>): Promise<JsonResponse<any>> {
  return call(deployment.baseUrl, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  resource: string;
  scope: string;
}

/** The A2A URL (RFC 8707 resource) of an agent, as the gateway spells it. */
export function a2aUrl(deployment: DeploymentInfo, collection: string, tokenId: bigint): string {
  return `${deployment.baseUrl}/agent/${getAddress(collection)}/${tokenId}/a2a`;
}

/** The whole flow for the agent's owner: register, authorize, sign, exchange (for the MCP URL unless `resource` says otherwise). */
export async function oauthTokens(
  deployment: DeploymentInfo,
  agent: { owner: TestAccount; collection: string; tokenId: bigint },
  options: { resource?: string } = {},
): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await publicClient(deployment);
  const { verifier, challenge } = pkce();
  const resource = options.resource ?? mcpUrl(deployment, agent.collection, agent.tokenId);
  const page = await openAuthorizePage(
    authorizeUrl(deployment, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
    }),
  );
  if (page.res.status !== 200) throw new Error(`authorize page: ${page.res.status} ${page.html.slice(0, 300)}`);
  const approved = await approve(deployment, page, agent.owner);
  if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${approved.text}`);
  const code = new URL(approved.body.redirectTo).searchParams.get('code') ?? '';
  const res = await tokenRequest(deployment, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: clientId,
    resource,
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return { clientId, tokens: res.body as Tokens };
}
