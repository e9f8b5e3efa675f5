/**
 * The smallest OAuth-protected MCP tool server a browser test needs, on its own loopback address
 * (`http://127.0.0.1:<port>`, which the local stack's outbound policy accepts; the integration
 * tests' ./oauth-tool-server.ts answers as `https://<name>.tools.example` instead, a name only a
 * Miniflare worker's routing reaches): a 401 challenge pointing to its resource metadata, its
 * authorization server's metadata, dynamic registration, an `/authorize` that approves at once and
 * sends the browser straight back with a code (and `iss`), a `/token` that checks PKCE S256, and
 * `/mcp` with one tool, `echo`, for a valid access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { listen, sendJson, type TestServer } from './mcp-servers';

export interface MiniOAuthToolServer extends TestServer {
  /** `http://127.0.0.1:<port>`: the resource's and the authorization server's origin. */
  base: string;
  /** How many times `/authorize` approved. */
  approvals(): number;
}

const random = () => randomBytes(24).toString('base64url');
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
const TOOLS = [{ name: 'echo', description: 'Echoes the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }];

export async function startMiniOAuthToolServer(): Promise<MiniOAuthToolServer> {
  let base = '';
  let approvals = 0;
  const clients = new Set<string>();
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();

  const server = await listen((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      return sendJson(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['read'] });
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return sendJson(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        token_endpoint_auth_methods_supported: ['none'],
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/.well-known/')) return sendJson(res, 404, { error: 'not found' });
    if (req.method === 'POST' && url.pathname === '/register') {
      const id = `mini-${random()}`;
      clients.add(id);
      return sendJson(res, 201, { ...(body as object), client_id: id, token_endpoint_auth_method: 'none' });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!clients.has(clientId) || q.get('code_challenge_method') !== 'S256' || !redirectUri)
        return sendJson(res, 400, { error: 'invalid_request' });
      approvals++;
      const code = random();
      codes.set(code, { clientId, challenge: q.get('code_challenge') ?? '', redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      back.searchParams.set('iss', base);
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(typeof body === 'string' ? body : '');
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const ok =
        form.get('grant_type') === 'authorization_code' &&
        code?.clientId === form.get('client_id') &&
        code.redirectUri === form.get('redirect_uri') &&
        code.challenge === s256(form.get('code_verifier') ?? '');
      if (!ok) return sendJson(res, 400, { error: 'invalid_grant' });
      const access = random();
      tokens.add(access);
      return sendJson(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: random(), scope: 'read' });
    }
    if (req.method === 'POST' && url.pathname === '/mcp') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token === undefined || !tokens.has(token)) {
        return sendJson(
          res,
          401,
          { error: 'unauthorized' },
          { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` },
        );
      }
      const msg = body as { id?: unknown; method?: string; params?: { name?: string; arguments?: { text?: unknown } } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const reply = (result: unknown) => sendJson(res, 200, { jsonrpc: '2.0', id: msg.id, result });
      if (msg.method === 'initialize')
        return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'mini-oauth', version: '1' } });
      if (msg.method === 'tools/list') return reply({ tools: TOOLS });
      if (msg.method === 'tools/call' && msg.params?.name === 'echo')
        return reply({ content: [{ type: 'text', text: String(msg.params.arguments?.text) }] });
      return sendJson(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
    }
    sendJson(res, 404, { error: 'not found' });
  });
  base = `http://127.0.0.1:${server.port}`;
  return Object.assign(server, { base, approvals: () => approvals });
}
