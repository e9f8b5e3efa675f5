/**
 * The steps of the conformance suite's `auth/*` client scenarios: the gateway as an OAuth client
 * of the scenario's tool server, driven only through the gateway's public API. A step registers
 * the server with `auth: { type: "oauth" }`, plays the owner's browser on the `authorizeUrl` the
 * gateway answers (the scenario's authorization server approves at once and redirects back to the
 * gateway's `/oauth/callback`), checks that the connection is ready, lists its tools and calls
 * one. For a step-up, the call's 424 `tool_authorization_required` carries a fresh URL: the
 * browser is played once more and the call made again.
 */
import type { DriverContext, Step } from './client-step';

/** The tool every scenario's server offers, and what it answers. */
const TOOL = 'test-tool';
const TOOL_TEXT = 'test';
/** Redirects a browser follows from the authorize URL to the gateway's callback page. */
const MAX_HOPS = 5;
const CALLBACK_PATH = '/oauth/callback';

interface Landing {
  status: number;
  url: string;
  text: string;
}

/**
 * Opens `authorizeUrl` as the owner's browser would: follows each redirect (the authorization
 * server's, to the gateway's callback) and answers the page it lands on.
 */
export async function browse(ctx: DriverContext, authorizeUrl: string): Promise<Landing> {
  let url = authorizeUrl;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(25_000) });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      url = new URL(location, url).toString();
      continue;
    }
    const text = await res.text();
    ctx.log(`browser landed on ${new URL(url).origin}${new URL(url).pathname}: HTTP ${res.status}`);
    return { status: res.status, url, text };
  }
  throw new Error(`the authorize URL redirected more than ${MAX_HOPS} times`);
}

/** Browses `authorizeUrl` and expects the gateway's callback page saying the tool server is authorized. */
async function authorize(ctx: DriverContext, authorizeUrl: string): Promise<void> {
  const landing = await browse(ctx, authorizeUrl);
  if (new URL(landing.url).pathname !== CALLBACK_PATH || landing.status !== 200 || !landing.text.includes('Tool server authorized'))
    throw new Error(
      `the browser did not end on the gateway's callback page saying authorized: HTTP ${landing.status} at ${landing.url}: ${landing.text.slice(0, 400)}`,
    );
}

/** The connection `id` as `GET …/mcp/connections` shows it. */
async function shown(ctx: DriverContext, id: string): Promise<Record<string, unknown>> {
  const res = await ctx.api('GET', '/mcp/connections');
  if (res.status !== 200) throw new Error(`list connections: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  const found = (res.body.connections as Array<Record<string, unknown>>).find((c) => c.id === id);
  if (found === undefined) throw new Error(`the connection ${id} is not listed`);
  return found;
}

/**
 * Registers the scenario's server with OAuth (the scenario's pre-registered client from
 * MCP_CONFORMANCE_CONTEXT when it gives one); answers the connection's id and its authorize URL.
 */
async function addOAuth(ctx: DriverContext): Promise<{ id: string; authorizeUrl: string }> {
  const clientId = typeof ctx.context.client_id === 'string' ? ctx.context.client_id : undefined;
  const clientSecret = typeof ctx.context.client_secret === 'string' ? ctx.context.client_secret : undefined;
  const auth = { type: 'oauth', ...(clientId === undefined ? {} : { clientId }), ...(clientSecret === undefined ? {} : { clientSecret }) };
  const res = await ctx.api('POST', '/mcp/connection', { url: ctx.serverUrl, name: 'conformance', auth });
  if (res.status !== 200) throw new Error(`register with OAuth: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  const id = String(res.body.id);
  ctx.track(id);
  const authorizeUrl = res.body.authorizeUrl;
  if (res.body.status !== 'authorization_required' || typeof authorizeUrl !== 'string')
    throw new Error(`register with OAuth: expected status authorization_required and an authorizeUrl, got ${res.text.slice(0, 300)}`);
  ctx.log(
    `registered ${ctx.serverUrl} as ${id} (OAuth${clientId === undefined ? '' : `, pre-registered client ${clientId}`}), authorization required`,
  );
  return { id, authorizeUrl };
}

/** Calls the scenario's tool through the gateway; answers the gateway's status and body. */
async function call(ctx: DriverContext, id: string) {
  const res = await ctx.api('POST', `/mcp/connection/${id}/tools/call`, { name: TOOL, arguments: {} });
  ctx.log(`call ${TOOL}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

function expectResult(res: { status: number; body: Record<string, unknown>; text: string }): void {
  const first = (res.body.content as Array<{ type?: unknown; text?: unknown }> | undefined)?.[0];
  if (res.status !== 200 || first?.type !== 'text' || first.text !== TOOL_TEXT)
    throw new Error(`expected ${TOOL} to answer the text ${JSON.stringify(TOOL_TEXT)}, got HTTP ${res.status} ${res.text.slice(0, 300)}`);
}

/** The fresh authorize URL of a 424 `tool_authorization_required`, or an error saying what came instead. */
function stepUpUrl(res: { status: number; body: Record<string, unknown>; text: string }): string {
  const error = res.body.error as { code?: unknown; details?: { authorizeUrl?: unknown } } | undefined;
  const url = error?.details?.authorizeUrl;
  if (res.status !== 424 || error?.code !== 'tool_authorization_required' || typeof url !== 'string')
    throw new Error(`expected 424 tool_authorization_required with details.authorizeUrl, got HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return url;
}

/** Registers with OAuth, authorizes, and checks the connection is ready with the scenario's tool. */
async function connect(ctx: DriverContext): Promise<string> {
  const { id, authorizeUrl } = await addOAuth(ctx);
  await authorize(ctx, authorizeUrl);
  const connection = await shown(ctx, id);
  if (connection.status !== 'ready')
    throw new Error(`after authorizing, the connection's status is ${String(connection.status)}, not ready`);
  const tools = await ctx.listTools(id);
  if (!tools.some((t) => t.name === TOOL)) throw new Error(`the server lists no ${TOOL}`);
  return id;
}

/** The common flow: authorize, list, call `test-tool`. */
export const oauthFlow: Step = async (ctx) => {
  expectResult(await call(ctx, await connect(ctx)));
};

/** The server wants more scopes for tools/call (403 insufficient_scope): authorize again once, then the call runs. */
export const oauthStepUp: Step = async (ctx) => {
  const id = await connect(ctx);
  await authorize(ctx, stepUpUrl(await call(ctx, id)));
  expectResult(await call(ctx, id));
};

/**
 * The server refuses every request after `initialize` with 403 insufficient_scope, forever. The
 * gateway must not loop: each authorization ends on a callback page saying 502
 * `tool_server_oauth_failed` (the new token is refused on tools/list), and each call answers at once with a 424 and a URL, never
 * authorizing by itself. The owner (this step) authorizes once more and then stops.
 */
export const oauthRetryLimit: Step = async (ctx) => {
  const { id, authorizeUrl } = await addOAuth(ctx);
  let url = authorizeUrl;
  for (const n of [1, 2]) {
    const landing = await browse(ctx, url);
    ctx.log(`authorization ${n} ended with HTTP ${landing.status}: ${pageSays(landing.text)}`);
    if (landing.status !== 502 || !landing.text.includes('tool_server_oauth_failed'))
      throw new Error(
        `expected the callback page to say 502 tool_server_oauth_failed (the server refuses every token), got HTTP ${landing.status}`,
      );
    url = stepUpUrl(await call(ctx, id));
  }
  const connection = await shown(ctx, id);
  if (connection.status !== 'authorization_required')
    throw new Error(`the connection's status is ${String(connection.status)}, not authorization_required`);
};

/**
 * The resource metadata names another resource than the server's URL: the gateway must refuse
 * the registration before any authorization, and keep no connection.
 */
export const oauthResourceMismatch: Step = async (ctx) => {
  const res = await ctx.api('POST', '/mcp/connection', { url: ctx.serverUrl, name: 'conformance', auth: { type: 'oauth' } });
  ctx.log(`register with OAuth: HTTP ${res.status} ${res.text.slice(0, 400)}`);
  if (res.status === 200) {
    ctx.track(String(res.body.id));
    throw new Error('the gateway accepted a server whose resource metadata names another resource');
  }
  const list = await ctx.api('GET', '/mcp/connections');
  if ((list.body.connections as unknown[] | undefined)?.length !== 0) throw new Error(`a connection was kept: ${list.text.slice(0, 300)}`);
};

/** The first paragraph of the gateway's callback page, as text. */
function pageSays(html: string): string {
  const paragraph = /<p[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? html;
  return paragraph.replace(/<[^>]+>/g, '').slice(0, 300);
}
