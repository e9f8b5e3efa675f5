/**
 * Our own small MCP client, not the SDK: runs in workerd and in Node, within our bounds.
 *
 * - One POST per call, JSON-RPC 2.0, increasing numeric ids, `Accept: application/json,
 *   text/event-stream`; a JSON or an SSE reply is parsed and its id checked.
 * - Plain servers (the spec's contract) need no handshake. Streamable-HTTP servers that answer
 *   "no session / not initialized" get `initialize` (offering 2025-11-25; 2025-06-18 and
 *   2025-03-26 accepted back) + `notifications/initialized` once, then the call is retried once
 *   with `Mcp-Session-Id` (when the server gave one) and `MCP-Protocol-Version`.
 * - A server of the stateless revision 2026-07-28 refuses a request that names no revision (HTTP
 *   400, or `UnsupportedProtocolVersionError`) and `initialize` alike: the client then asks
 *   `server/discover` once, and when the server lists 2026-07-28 every request from then on
 *   carries the revision (./revisions), with no handshake.
 *   Calls on one client share that handshake: a call that finds one under way waits for it, and a
 *   call whose session was replaced while it was on its way retries in the new one, so parallel
 *   calls open one session, never one each. With `handshakes` the clients of one connection (one
 *   per request) share the handshake that replaces a dropped session as well.
 * - With `handshakeFirst` (registration) the first request is `initialize`, as MCP asks; a server
 *   answering it with a JSON-RPC error is a plain one and is reached without a handshake.
 * - An SSE reply the server closes before our response (after events with ids) is resumed with a
 *   GET and `Last-Event-ID` after the server's `retry` wait, within the call's deadline.
 * - No redirects, a deadline and a response byte cap on every call; only our headers and the
 *   configured credential are sent; error messages never carry the credential (nor the URL,
 *   whose query may hold one).
 * - Failures are `McpError`s with a `kind`; mapping a kind to an HTTP status is the caller's job.
 *
 * This file holds the client itself and re-exports the rest of the public API: types, McpError and
 * limits (./types), credential checks (./credentials), checkToolServer (./tool-server-check). Reply
 * reading lives in ./reply, the per-operation deadline in ./deadline.
 */
import { credentialSecrets, setCredentialHeader } from './credentials';
import { untilAborted, withDeadline, type Deadline } from './deadline';
import { checkStatus } from './http-status';
import { discard, networkCode, readErrorBody, readReply, rpcFailure } from './rpc-response';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  isObject,
  MAX_TOOL_PAGES,
  MAX_TOOLS,
  McpError,
  SESSION_CLOSE_TIMEOUT_MS,
  type CallResult,
  type JsonObject,
  type McpClient,
  type HandshakeShare,
  type McpClientOptions,
  type McpSession,
  type Tool,
} from './types';
import { parseTool } from './tool-shape';
import {
  isHandshakeRevision,
  OFFERED_REVISION,
  speaksStateless,
  STATELESS_REVISION,
  statelessHeaders,
  statelessParams,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './revisions';

export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_TOOL_PAGES,
  MAX_TOOLS,
  MCP_PROTOCOL_VERSION,
  McpError,
  SESSION_CLOSE_TIMEOUT_MS,
} from './types';
export type { CallResult, ContentItem, HandshakeShare, McpAuth, McpClient, McpClientOptions, McpFailure, McpSession, Tool } from './types';
export { checkCredentialHeader, checkCredentialValue } from './credentials';
export { checkToolServer, type CheckToolServerResult } from './tool-server-check';

const CLIENT_NAME = 'agent-gateway';
const DEFAULT_CLIENT_VERSION = '0.1.0';

type PostOutcome =
  | { type: 'response'; result: JsonObject; headers: Headers }
  /** `generation`: the session the request was sent in (see `generation` below). */
  | { type: 'session_error'; status: number; generation: number }
  /** HTTP 400 for another reason: maybe a stateless server missing its revision (see `fallForward`). */
  | { type: 'refused'; failure: McpError };

export function createMcpClient(options: McpClientOptions): McpClient {
  let endpoint: string;
  try {
    const parsed = new URL(options.url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
    endpoint = parsed.href;
  } catch {
    throw new TypeError('MCP client: url must be an absolute http(s) URL');
  }
  const auth = options.auth;
  const secrets = credentialSecrets(auth);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const clientVersion = options.clientVersion ?? DEFAULT_CLIENT_VERSION;
  const ceilingMs = options.ceilingMs ?? timeoutMs;

  let nextId = 1;
  // A session kept from an earlier request (./tool-session.ts); the server's 404/400 starts a new one.
  let sessionId: string | undefined = options.session?.id;
  let protocolVersion: string | undefined = options.session?.protocolVersion;
  let handshakeInFlight: Promise<void> | undefined;
  // Counts the handshakes that succeeded: a session error on a request sent before the latest one
  // is that session's predecessor's, so the call retries instead of opening another session.
  let generation = 0;
  // The one `server/discover` a client asks when a server refuses requests without a revision.
  let discovery: Promise<boolean> | undefined;
  // False until a `handshakeFirst` client has sent its `initialize` (see `openFirst`).
  let opened = options.handshakeFirst !== true || options.session !== undefined;
  const clientInfo = { name: CLIENT_NAME, version: clientVersion };
  const stateless = () => protocolVersion === STATELESS_REVISION;

  function buildHeaders(extra: Record<string, string>): Headers {
    const headers = new Headers(extra);
    headers.set('Content-Type', 'application/json');
    headers.set('Accept', 'application/json, text/event-stream');
    if (sessionId !== undefined) headers.set('Mcp-Session-Id', sessionId);
    if (protocolVersion !== undefined && !headers.has('MCP-Protocol-Version')) headers.set('MCP-Protocol-Version', protocolVersion);
    setCredentialHeader(headers, auth);
    return headers;
  }

  async function send(method: string, body: unknown, deadline: Deadline, extraHeaders: Record<string, string> = {}): Promise<Response> {
    try {
      return await fetchImpl(endpoint, {
        method,
        headers: buildHeaders(extraHeaders),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'manual',
        signal: deadline.signal,
      });
    } catch (err) {
      if (deadline.expired()) throw deadline.timeoutError();
      throw new McpError('unreachable', `tool server unreachable${networkCode(err)}`);
    }
  }

  /** POSTs one JSON-RPC request and returns its result, or says the server wants a session. */
  async function post(method: string, params: JsonObject, deadline: Deadline, modern = stateless()): Promise<PostOutcome> {
    const id = nextId++;
    const sentSession = sessionId !== undefined;
    const sentIn = generation;
    const res = await send(
      'POST',
      { jsonrpc: '2.0', method, params: modern ? statelessParams(params, clientInfo) : params, id },
      deadline,
      modern ? statelessHeaders(method, params) : {},
    );
    await checkStatus(res);
    if (res.status === 400 || res.status === 404) {
      const body = await readErrorBody(res, maxBytes, deadline);
      const rpcError = isObject(body) && isObject(body.error) ? body.error : undefined;
      const text = typeof rpcError?.message === 'string' ? rpcError.message : '';
      if (/session|initiali[sz]/i.test(text) || (res.status === 404 && sentSession)) {
        return { type: 'session_error', status: res.status, generation: sentIn };
      }
      const failure =
        rpcError !== undefined
          ? rpcFailure(rpcError, secrets, res.status)
          : new McpError('bad_status', `tool server answered HTTP ${res.status}`, { status: res.status });
      if (res.status === 400 && !modern && protocolVersion === undefined) return { type: 'refused', failure };
      throw failure;
    }
    if (res.status < 200 || res.status >= 300) {
      await discard(res);
      throw new McpError('bad_status', `tool server answered HTTP ${res.status}`, { status: res.status });
    }
    if (res.status === 202 || res.status === 204 || res.body === null) {
      await discard(res);
      throw new McpError('bad_response', `tool server answered HTTP ${res.status} without a JSON-RPC reply`, {
        status: res.status,
      });
    }
    // An SSE reply the server closes before our response is resumed with a GET and `Last-Event-ID`.
    const resume = async (lastEventId: string): Promise<Response> => {
      const again = await send('GET', undefined, deadline, { 'Last-Event-ID': lastEventId });
      await checkStatus(again);
      return again;
    };
    const message = await readReply(res, id, maxBytes, secrets, deadline, resume);
    return { type: 'response', result: message, headers: res.headers };
  }

  /** One JSON-RPC call with the session strategy: direct first, then handshake and one retry. */
  async function rpc(method: string, params: JsonObject, deadline: Deadline): Promise<JsonObject> {
    // A handshake under way: wait for its session rather than send in none and start another.
    const pending = handshakeInFlight;
    if (pending !== undefined) {
      await untilAborted(
        pending.catch(() => undefined),
        deadline,
      );
    }
    if (!opened && protocolVersion === undefined) await openFirst(deadline);
    const first = await postOrRefuse(method, params, deadline);
    if (first.type === 'response') return first.result;
    if (first.type === 'refused') {
      if (!(await fallForward(deadline))) throw first.failure;
    } else {
      await handshake(deadline, first.generation);
    }
    const second = await post(method, params, deadline);
    if (second.type === 'response') return second.result;
    if (second.type === 'refused') throw second.failure;
    throw new McpError('bad_status', `tool server rejected the session after initialize (HTTP ${second.status})`, {
      status: second.status,
    });
  }

  /**
   * The first request of a `handshakeFirst` client: `initialize`, unless the server refuses it as a
   * plain server may (a JSON-RPC error, or HTTP 404/405 for a method it does not serve).
   */
  async function openFirst(deadline: Deadline): Promise<void> {
    opened = true;
    try {
      await handshake(deadline, generation, true);
    } catch (err) {
      const plain =
        err instanceof McpError && (err.kind === 'rpc_error' || (err.kind === 'bad_status' && (err.status === 404 || err.status === 405)));
      if (!plain) throw err;
      sessionId = undefined;
      protocolVersion = undefined;
    }
  }

  /** `post`, with a revision refusal in a 200 reply (`UnsupportedProtocolVersionError`) taken as a 400's. */
  async function postOrRefuse(method: string, params: JsonObject, deadline: Deadline): Promise<PostOutcome> {
    const unnegotiated = protocolVersion === undefined;
    try {
      return await post(method, params, deadline);
    } catch (err) {
      if (unnegotiated && err instanceof McpError && err.rpcCode === UNSUPPORTED_PROTOCOL_VERSION) return { type: 'refused', failure: err };
      throw err;
    }
  }

  /**
   * Asks `server/discover` once (stateless shape) after a refusal: true when the server speaks the
   * stateless revision, which every request then uses. Anything else leaves the client as it was.
   */
  function fallForward(deadline: Deadline): Promise<boolean> {
    if (stateless()) return Promise.resolve(true);
    discovery ??= (async () => {
      try {
        const answer = await post('server/discover', {}, deadline, true);
        if (answer.type === 'response' && speaksStateless(answer.result)) {
          sessionId = undefined;
          protocolVersion = STATELESS_REVISION;
          return true;
        }
      } catch (err) {
        if (deadline.expired()) {
          discovery = undefined; // a timeout says nothing of the server: a later call asks again
          throw err;
        }
      }
      return false;
    })();
    return untilAborted(discovery, deadline);
  }

  /**
   * One handshake at a time, none when another has replaced the session `failed` was sent in. A
   * session the server dropped is replaced through `options.handshakes` when given (the first
   * `initialize` of a `handshakeFirst` client is its own), so parallel requests share it too.
   */
  function handshake(deadline: Deadline, failed: number, probing = false): Promise<void> {
    if (handshakeInFlight === undefined) {
      if (failed !== generation) return Promise.resolve();
      const share = probing ? undefined : options.handshakes;
      const run = share === undefined ? runHandshake(deadline, probing) : replaceSession(share, deadline);
      handshakeInFlight = run
        .then(() => {
          generation++;
        })
        .finally(() => {
          handshakeInFlight = undefined;
        });
    }
    // A call that joins another's handshake still stops at its own deadline.
    return untilAborted(handshakeInFlight, deadline);
  }

  /** The session replacing the dropped one, opened here or by another client of the connection. */
  async function replaceSession(share: HandshakeShare, deadline: Deadline): Promise<void> {
    const dropped = session();
    const opened = share.replace(dropped, async () => {
      await runHandshake(deadline, false);
      return session();
    });
    const replacement = await untilAborted(opened, deadline);
    sessionId = replacement?.id;
    protocolVersion = replacement?.protocolVersion;
  }

  /** `probing`: a first `initialize` (`openFirst`), where a JSON-RPC error in a 200 means a plain server. */
  async function runHandshake(deadline: Deadline, probing: boolean): Promise<void> {
    sessionId = undefined;
    protocolVersion = undefined;
    let init: PostOutcome;
    try {
      init = await postOrRefuse('initialize', { protocolVersion: OFFERED_REVISION, capabilities: {}, clientInfo }, deadline);
    } catch (err) {
      // Any JSON-RPC error may be a stateless server's too; to a first probe, it is a plain server's.
      if (!(err instanceof McpError && err.kind === 'rpc_error') || probing) throw err;
      init = { type: 'refused', failure: err };
    }
    if (init.type === 'refused') {
      // A server of the stateless revision has no initialize.
      if (await fallForward(deadline)) return;
      throw init.failure;
    }
    if (init.type !== 'response') {
      throw new McpError('bad_status', `tool server rejected initialize (HTTP ${init.status})`, { status: init.status });
    }
    const version = init.result.protocolVersion;
    // A plain server answering every method alike: a result without a revision is no handshake.
    if (probing && version === undefined) return;
    if (typeof version !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(version)) {
      throw new McpError('bad_response', 'tool server initialize result has no valid protocolVersion');
    }
    if (!isHandshakeRevision(version)) {
      throw new McpError(
        'bad_response',
        `tool server negotiated MCP revision ${version}; this client speaks ${OFFERED_REVISION}, 2025-06-18 and 2025-03-26 (and 2026-07-28 without a handshake)`,
      );
    }
    const session = init.headers.get('mcp-session-id');
    if (session !== null && !/^[\x21-\x7e]{1,1024}$/.test(session)) {
      throw new McpError('bad_response', 'tool server sent an invalid Mcp-Session-Id');
    }
    sessionId = session ?? undefined;
    protocolVersion = version;
    const res = await send('POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, deadline);
    await checkStatus(res);
    await discard(res);
    if (res.status < 200 || res.status >= 300) {
      throw new McpError('bad_status', `tool server rejected notifications/initialized (HTTP ${res.status})`, {
        status: res.status,
      });
    }
  }

  async function listTools(): Promise<Tool[]> {
    return withDeadline(timeoutMs, async (deadline) => {
      const tools: Tool[] = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      for (let page = 1; ; page++) {
        const result = await rpc('tools/list', cursor === undefined ? {} : { cursor }, deadline);
        if (!Array.isArray(result.tools)) {
          throw new McpError('bad_response', 'tools/list result has no tools array');
        }
        for (const raw of result.tools) tools.push(parseTool(raw));
        if (tools.length > MAX_TOOLS) {
          throw new McpError('too_large', `tool server lists more than ${MAX_TOOLS} tools`);
        }
        const next = result.nextCursor;
        if (next === undefined || next === null || next === '') break;
        if (typeof next !== 'string') throw new McpError('bad_response', 'tools/list nextCursor is not a string');
        if (cursors.has(next)) throw new McpError('bad_response', 'tools/list repeats a cursor');
        if (page >= MAX_TOOL_PAGES) {
          throw new McpError('too_large', `tools/list has more than ${MAX_TOOL_PAGES} pages`);
        }
        cursors.add(next);
        cursor = next;
      }
      return tools;
    });
  }

  async function callTool(name: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<CallResult> {
    if (typeof name !== 'string' || name === '') throw new TypeError('MCP client: tool name must be a non-empty string');
    if (args !== undefined && !isObject(args)) throw new TypeError('MCP client: tool arguments must be an object');
    // Each progress notification for this token restarts the timeout, up to the ceiling.
    const progressToken = crypto.randomUUID();
    const params = { name, arguments: args ?? {}, _meta: { progressToken } };
    return withDeadline(
      timeoutMs,
      async (deadline) => {
        const result = await rpc('tools/call', params, deadline);
        if (!Array.isArray(result.content)) {
          throw new McpError('bad_response', 'tools/call result has no content array');
        }
        for (const item of result.content) {
          if (!isObject(item) || typeof item.type !== 'string') {
            throw new McpError('bad_response', 'tools/call content item has no type');
          }
        }
        if (result.isError !== undefined && typeof result.isError !== 'boolean') {
          throw new McpError('bad_response', 'tools/call isError is not a boolean');
        }
        if (result.structuredContent !== undefined && !isObject(result.structuredContent)) {
          throw new McpError('bad_response', 'tools/call structuredContent is not an object');
        }
        return result as CallResult;
      },
      { progressToken, ceilingMs, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
  }

  /** The DELETE gets a short deadline of its own, never a second full timeout. */
  async function close(): Promise<void> {
    if (sessionId === undefined) return;
    try {
      await withDeadline(Math.min(timeoutMs, SESSION_CLOSE_TIMEOUT_MS), async (deadline) => {
        const res = await send('DELETE', undefined, deadline);
        await discard(res);
      });
    } catch {
      // best effort: the server expires idle sessions anyway
    } finally {
      sessionId = undefined;
      protocolVersion = undefined;
    }
  }

  function session(): McpSession | undefined {
    if (protocolVersion === undefined) return undefined;
    return sessionId === undefined ? { protocolVersion } : { id: sessionId, protocolVersion };
  }

  return { listTools, callTool, close, session };
}
