/**
 * An OAuth-protected MCP tool server with its own authorization server, on one loopback port
 * (the gateway reaches it as `https://<name>.tools.example`, see tool-routing.ts). Small but real:
 * - resource metadata (RFC 9728), pointed to by the 401's `WWW-Authenticate`, or only at its
 *   well-known places, or none (the 2025-03-26 revision);
 * - authorization server metadata (RFC 8414, or OpenID discovery only, or none);
 * - `/register` (RFC 7591), pre-registered clients, Client ID Metadata Documents (fetched from the
 *   client id's URL);
 * - `/authorize` approves at once and redirects back with a code (and `iss`);
 * - `/token`: PKCE S256 checked, client authentication by its method, refresh tokens rotated (a used
 *   one is refused with `invalid_grant`), access tokens with the lifetime the test sets;
 * - `/mcp`: plain JSON-RPC, 401 with a Bearer challenge without a valid token; tool `echo`, and
 *   `admin_op`, which answers 403 `insufficient_scope` unless the token has scope `admin`.
 * `config` may be changed by a test at any time; counters and requests are kept for assertions.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, sendJson, type TestServer } from './mcp-servers';

export interface OAuthServerConfig {
  /** Where the resource metadata is: pointed to by the 401, only well-known, or none. */
  prm: 'header' | 'well-known' | 'none';
  /** The authorization server metadata: RFC 8414, OpenID only, or none (default endpoints). */
  asMetadata: 'oauth' | 'openid' | 'none';
  cimd: boolean;
  dcr: boolean;
  authMethods: string[];
  /** Lifetime of access tokens, seconds. */
  accessTtl: number;
  /** A metadata answer that misbehaves. */
  badMetadata?: 'slow' | 'huge' | 'redirect' | 'html' | 'issuer';
  /** Send `iss` on the redirect back (RFC 9207), or a wrong one. */
  iss: 'right' | 'none' | 'wrong';
  /** The 401's `scope`. */
  challengeScope?: string;
  /** Refuse every refresh with invalid_grant. */
  refuseRefresh: boolean;
}

export interface Client {
  secret?: string;
  method: string;
  redirectUris: string[];
}

export interface OAuthToolServer extends TestServer {
  /** `https://<name>.tools.example`, as the gateway reaches it. */
  base: string;
  config: OAuthServerConfig;
  clients: Map<string, Client>;
  counts: { register: number; authorizationCode: number; refresh: number; mcpWithToken: number };
  /** Every access token issued, with its scopes. */
  tokens: Map<string, { scopes: string[]; expires: number }>;
  /** The latest `/authorize` query. */
  lastAuthorize?: URLSearchParams;
}

const DEFAULTS: OAuthServerConfig = {
  prm: 'header',
  asMetadata: 'oauth',
  cimd: false,
  dcr: true,
  authMethods: ['none', 'client_secret_basic', 'client_secret_post'],
  accessTtl: 3600,
  iss: 'right',
  refuseRefresh: false,
};

const random = () => randomBytes(24).toString('base64url');
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

const TOOLS = [
  { name: 'echo', description: 'Echoes the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'admin_op', description: 'Needs scope admin', inputSchema: { type: 'object', properties: {} } },
];

/**
 * `name`: the gateway reaches it as `https://<name>.tools.example`; `loopback: true` instead as
 * its own `http://127.0.0.1:<port>` (a worker with the local stack's loopback switch).
 */
export async function startOAuthToolServer(
  name: string,
  config: Partial<OAuthServerConfig> = {},
  options: { loopback?: boolean } = {},
): Promise<OAuthToolServer> {
  const state: OAuthToolServer = {
    base: `https://${name}.tools.example`,
    config: { ...DEFAULTS, ...config },
    clients: new Map(),
    counts: { register: 0, authorizationCode: 0, refresh: 0, mcpWithToken: 0 },
    tokens: new Map(),
  } as OAuthToolServer;
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string; resource: string; scopes: string[] }>();
  const refreshes = new Map<string, { clientId: string; scopes: string[] }>();

  function issue(clientId: string, scopes: string[]) {
    const access = random();
    const refresh = random();
    state.tokens.set(access, { scopes, expires: Date.now() + state.config.accessTtl * 1000 });
    refreshes.set(refresh, { clientId, scopes });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: state.config.accessTtl,
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  }

  /** The client's authentication at the token endpoint, by its method; the client id or undefined. */
  function authenticate(req: IncomingMessage, form: URLSearchParams): string | undefined {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1] ?? '', 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      const client = state.clients.get(id ?? '');
      return client?.method === 'client_secret_basic' && client.secret === secret ? id : undefined;
    }
    const id = form.get('client_id') ?? '';
    const client = state.clients.get(id);
    if (client === undefined && id.endsWith('/oauth/client.json') && state.config.cimd) return id;
    if (client?.method === 'client_secret_post') return client.secret === form.get('client_secret') ? id : undefined;
    return client?.method === 'none' ? id : undefined;
  }

  async function knownRedirect(clientId: string, redirectUri: string): Promise<boolean> {
    const client = state.clients.get(clientId);
    if (client) return client.redirectUris.includes(redirectUri);
    if (!state.config.cimd || !clientId.startsWith('http')) return false;
    const doc = (await (await fetch(clientId)).json()) as { client_id?: string; redirect_uris?: string[] };
    return doc.client_id === clientId && (doc.redirect_uris ?? []).includes(redirectUri);
  }

  function metadata(res: ServerResponse, body: unknown): void {
    const bad = state.config.badMetadata;
    if (bad === 'slow') return void setTimeout(() => !res.destroyed && sendJson(res, 200, body), 5_000);
    if (bad === 'huge') return void sendJson(res, 200, { ...(body as object), padding: 'x'.repeat(200_000) });
    if (bad === 'redirect') return void res.writeHead(302, { location: 'https://elsewhere.example/meta' }).end();
    if (bad === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
    if (bad === 'issuer') return void sendJson(res, 200, { ...(body as object), issuer: 'https://liar.example' });
    sendJson(res, 200, body);
  }

  const asMetadata = () => ({
    issuer: state.base,
    authorization_endpoint: `${state.base}/authorize`,
    token_endpoint: `${state.base}/token`,
    ...(state.config.dcr ? { registration_endpoint: `${state.base}/register` } : {}),
    token_endpoint_auth_methods_supported: state.config.authMethods,
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    ...(state.config.cimd ? { client_id_metadata_document_supported: true } : {}),
  });

  const server = await listen(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const c = state.config;
    const prm = { resource: `${state.base}/mcp`, authorization_servers: [state.base], scopes_supported: ['read', 'admin'] };
    if (req.method === 'GET' && url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      return c.prm === 'none' ? sendJson(res, 404, { error: 'not found' }) : metadata(res, prm);
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server' && c.asMetadata === 'oauth')
      return metadata(res, asMetadata());
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration' && c.asMetadata === 'openid')
      return metadata(res, asMetadata());
    if (req.method === 'GET' && url.pathname.startsWith('/.well-known/')) return sendJson(res, 404, { error: 'not found' });
    if (req.method === 'POST' && url.pathname === '/register') {
      state.counts.register++;
      const asked = body as { redirect_uris?: string[]; token_endpoint_auth_method?: string };
      const method = asked.token_endpoint_auth_method ?? 'client_secret_basic';
      const id = `dcr-${random()}`;
      const secret = method === 'none' ? undefined : random();
      state.clients.set(id, { method, redirectUris: asked.redirect_uris ?? [], ...(secret ? { secret } : {}) });
      return sendJson(res, 201, { client_id: id, ...(secret ? { client_secret: secret } : {}), token_endpoint_auth_method: method });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      state.lastAuthorize = q;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!(await knownRedirect(clientId, redirectUri)) || q.get('code_challenge_method') !== 'S256' || !q.get('resource')) {
        return sendJson(res, 400, { error: 'invalid_request' });
      }
      const code = random();
      const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
      codes.set(code, { clientId, challenge: q.get('code_challenge') ?? '', redirectUri, resource: q.get('resource') ?? '', scopes });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      if (c.iss !== 'none') back.searchParams.set('iss', c.iss === 'right' ? state.base : 'https://liar.example');
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(typeof body === 'string' ? body : '');
      const clientId = authenticate(req, form);
      if (clientId === undefined) return sendJson(res, 401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'authorization_code') {
        state.counts.authorizationCode++;
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const ok =
          code?.clientId === clientId &&
          code.challenge === s256(form.get('code_verifier') ?? '') &&
          code.redirectUri === form.get('redirect_uri') &&
          code.resource === form.get('resource');
        return ok ? sendJson(res, 200, issue(clientId, code.scopes)) : sendJson(res, 400, { error: 'invalid_grant' });
      }
      if (form.get('grant_type') === 'refresh_token') {
        state.counts.refresh++;
        const old = refreshes.get(form.get('refresh_token') ?? '');
        refreshes.delete(form.get('refresh_token') ?? '');
        if (!old || old.clientId !== clientId || c.refuseRefresh) return sendJson(res, 400, { error: 'invalid_grant' });
        return sendJson(res, 200, issue(clientId, old.scopes));
      }
      return sendJson(res, 400, { error: 'unsupported_grant_type' });
    }
    if (req.method === 'POST' && url.pathname === '/mcp') return mcp(req, res, body);
    sendJson(res, 404, { error: 'not found' });
  });

  function mcp(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : state.tokens.get(token);
    if (!grant || grant.expires < Date.now()) {
      const params = [
        ...(state.config.prm === 'header' ? [`resource_metadata="${state.base}/.well-known/oauth-protected-resource/mcp"`] : []),
        ...(state.config.challengeScope ? [`scope="${state.config.challengeScope}"`] : []),
      ];
      return void sendJson(res, 401, { error: 'unauthorized' }, { 'www-authenticate': `Bearer ${params.join(', ')}`.trim() });
    }
    state.counts.mcpWithToken++;
    const msg = body as { id?: unknown; method?: string; params?: { name?: string; arguments?: { text?: unknown } } };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const reply = (result: unknown) => sendJson(res, 200, { jsonrpc: '2.0', id: msg.id, result });
    if (msg.method === 'initialize')
      return void reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'oauth-test', version: '1' } });
    if (msg.method === 'tools/list') return void reply({ tools: TOOLS });
    if (msg.method === 'tools/call' && msg.params?.name === 'echo')
      return void reply({ content: [{ type: 'text', text: String(msg.params.arguments?.text) }] });
    if (msg.method === 'tools/call' && msg.params?.name === 'admin_op') {
      if (!grant.scopes.includes('admin')) {
        return void sendJson(
          res,
          403,
          { error: 'insufficient_scope' },
          { 'www-authenticate': 'Bearer error="insufficient_scope", scope="admin"' },
        );
      }
      return void reply({ content: [{ type: 'text', text: 'done' }] });
    }
    sendJson(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }

  if (options.loopback) state.base = new URL(server.url).origin;
  return Object.assign(state, server);
}
