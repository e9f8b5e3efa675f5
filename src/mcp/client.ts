/**
 * Our own small MCP client (DESIGN §6), not the SDK: runs in workerd and in Node.
 *
 * - One POST per call, JSON-RPC 2.0, increasing numeric ids, `Accept: application/json,
 *   text/event-stream`; a JSON or an SSE reply is parsed and its id checked.
 * - Plain servers (the spec's contract) need no handshake. Streamable-HTTP servers that answer
 *   "no session / not initialized" get `initialize` + `notifications/initialized` once, then the
 *   call is retried once with `Mcp-Session-Id` (when the server gave one) and `MCP-Protocol-Version`.
 * - No redirects, a deadline and a response byte cap on every call; only our headers and the
 *   configured credential are sent; error messages never carry the credential (nor the URL,
 *   whose query may hold one).
 * - Failures are `McpError`s with a `kind`; mapping a kind to an HTTP status is the caller's job.
 */
import { checkToolSchema } from './schema-check';

export type McpFailure =
  /** 401/403: the tool server rejected the credential. */
  | 'unauthorized'
  /** 424: the tool server cannot reach its own backend. */
  | 'upstream_dependency'
  /** 5xx from the tool server (`status` holds it). */
  | 'upstream_error'
  /** Another unexpected HTTP status (e.g. 404 on a wrong path, 405, 429), or a session the server keeps rejecting. */
  | 'bad_status'
  /** No complete answer within the deadline. */
  | 'timeout'
  /** Network failure: DNS, connection refused or reset, TLS. */
  | 'unreachable'
  /** A 3xx answer; redirects are never followed. */
  | 'redirect'
  /** The reply is larger than the byte cap, or tools/list has too many pages or tools. */
  | 'too_large'
  /** Not a JSON-RPC reply: HTML, invalid JSON, missing result, malformed tools or content. */
  | 'bad_response'
  /** A JSON-RPC reply with an id other than ours. */
  | 'bad_id'
  /** A JSON-RPC error object (`rpcCode` holds its code). */
  | 'rpc_error'
  /** A tool whose inputSchema is not a valid JSON Schema object (`tool` names it). */
  | 'invalid_schema';

export class McpError extends Error {
  override readonly name = 'McpError';
  readonly kind: McpFailure;
  /** The tool server's HTTP status, when it answered with one. */
  readonly status?: number;
  /** The JSON-RPC error code, for `rpc_error`. */
  readonly rpcCode?: number;
  /** The tool concerned, for `invalid_schema`. */
  readonly tool?: string;
  constructor(kind: McpFailure, message: string, extra: { status?: number; rpcCode?: number; tool?: string } = {}) {
    super(message);
    this.kind = kind;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.rpcCode !== undefined) this.rpcCode = extra.rpcCode;
    if (extra.tool !== undefined) this.tool = extra.tool;
  }
}

export type McpAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'header'; name: string; value: string };

export interface McpClientOptions {
  url: string;
  auth: McpAuth;
  /** Deadline of one public operation (handshake, retry and every page included). Default 10 s. */
  timeoutMs?: number;
  /** Byte cap of one reply. Default 1 MiB. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
  /** Sent as clientInfo.version in `initialize`. */
  clientVersion?: string;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ContentItem {
  type: string;
  [key: string]: unknown;
}

export interface CallResult {
  content: ContentItem[];
  isError?: boolean;
  [key: string]: unknown;
}

export interface McpClient {
  /** tools/list, following `nextCursor` (at most 20 pages and 1000 tools). */
  listTools(): Promise<Tool[]>;
  /** tools/call; resolves with the result, also when the tool reports `isError: true`. */
  callTool(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** Ends the server-side session, if one was opened (best effort, never throws). */
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const MCP_PROTOCOL_VERSION = '2025-06-18';
export const MAX_TOOL_PAGES = 20;
export const MAX_TOOLS = 1000;
const CLIENT_NAME = 'agent-gateway';
const DEFAULT_CLIENT_VERSION = '0.1.0';
/** Byte cap for the body of an error status (we only look for a JSON-RPC error in it). */
const ERROR_BODY_BYTES = 64 * 1024;
const MAX_UPSTREAM_TEXT = 300;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
/** Headers the credential may not take over: ours, and ones that change the request's meaning. */
const RESERVED_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'cookie',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'origin',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Checks a credential header (name and value) before it is stored or used; never echoes the value. */
export function checkCredentialHeader(name: string, value: string): { ok: true } | { ok: false; problem: string } {
  if (typeof name !== 'string' || !HEADER_NAME.test(name) || name.length > 100) {
    return { ok: false, problem: 'header name is not a valid HTTP header name' };
  }
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    return { ok: false, problem: `header ${name.toLowerCase()} cannot carry a credential` };
  }
  return checkCredentialValue(value);
}

export function checkCredentialValue(value: string): { ok: true } | { ok: false; problem: string } {
  if (typeof value !== 'string' || value.length === 0 || value.length > 8192 || !HEADER_VALUE.test(value)) {
    return {
      ok: false,
      problem: 'credential must be 1..8192 printable ASCII characters without leading or trailing spaces',
    };
  }
  return { ok: true };
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Deadline {
  signal: AbortSignal;
  expired(): boolean;
}

type PostOutcome =
  | { type: 'response'; result: JsonObject; headers: Headers }
  | { type: 'session_error'; status: number };

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
  const secrets: string[] = [];
  if (auth.type === 'bearer') {
    const check = checkCredentialValue(auth.token);
    if (!check.ok) throw new TypeError(`MCP client: bearer ${check.problem}`);
    secrets.push(auth.token);
  } else if (auth.type === 'header') {
    const check = checkCredentialHeader(auth.name, auth.value);
    if (!check.ok) throw new TypeError(`MCP client: ${check.problem}`);
    secrets.push(auth.value);
  } else if (auth.type !== 'none') {
    throw new TypeError('MCP client: unknown auth type');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const clientVersion = options.clientVersion ?? DEFAULT_CLIENT_VERSION;

  let nextId = 1;
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let handshakeInFlight: Promise<void> | undefined;

  /** Upstream text for an error message: one line, short, and never the credential. */
  function scrub(text: unknown): string {
    let out = (typeof text === 'string' ? text : String(text)).replace(/[\u0000-\u001f\u007f]+/g, ' ');
    for (const secret of secrets) out = out.split(secret).join('***');
    return out.length > MAX_UPSTREAM_TEXT ? `${out.slice(0, MAX_UPSTREAM_TEXT)}...` : out;
  }

  function buildHeaders(): Headers {
    const headers = new Headers();
    headers.set('Content-Type', 'application/json');
    headers.set('Accept', 'application/json, text/event-stream');
    if (sessionId !== undefined) headers.set('Mcp-Session-Id', sessionId);
    if (protocolVersion !== undefined) headers.set('MCP-Protocol-Version', protocolVersion);
    if (auth.type === 'bearer') headers.set('Authorization', `Bearer ${auth.token}`);
    else if (auth.type === 'header') headers.set(auth.name, auth.value);
    return headers;
  }

  async function withDeadline<T>(run: (deadline: Deadline) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      controller.abort(new Error('MCP call timed out'));
    }, timeoutMs);
    const deadline: Deadline = { signal: controller.signal, expired: () => expired };
    try {
      return await run(deadline);
    } catch (err) {
      if (expired && !(err instanceof McpError && err.kind !== 'unreachable' && err.kind !== 'bad_response')) {
        throw timeoutError();
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  function timeoutError(): McpError {
    return new McpError('timeout', `tool server did not answer within ${timeoutMs} ms`);
  }

  async function send(method: string, body: unknown, deadline: Deadline): Promise<Response> {
    try {
      return await fetchImpl(endpoint, {
        method,
        headers: buildHeaders(),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'manual',
        signal: deadline.signal,
      });
    } catch (err) {
      if (deadline.expired()) throw timeoutError();
      throw new McpError('unreachable', `tool server unreachable${networkCode(err)}`);
    }
  }

  /** POSTs one JSON-RPC request and returns its result, or says the server wants a session. */
  async function post(method: string, params: JsonObject, deadline: Deadline): Promise<PostOutcome> {
    const id = nextId++;
    const sentSession = sessionId !== undefined;
    const res = await send('POST', { jsonrpc: '2.0', method, params, id }, deadline);
    await checkStatus(res);
    if (res.status === 400 || res.status === 404) {
      const body = await readErrorBody(res, deadline);
      const rpcError = isObject(body) && isObject(body.error) ? body.error : undefined;
      const text = typeof rpcError?.message === 'string' ? rpcError.message : '';
      if (/session|initiali[sz]/i.test(text) || (res.status === 404 && sentSession)) {
        return { type: 'session_error', status: res.status };
      }
      if (rpcError !== undefined) throw rpcFailure(rpcError, res.status);
      throw new McpError('bad_status', `tool server answered HTTP ${res.status}`, { status: res.status });
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
    const contentType = (res.headers.get('content-type') ?? '').toLowerCase();
    const message = contentType.startsWith('text/event-stream')
      ? await readSse(res, id, deadline)
      : pickResponse(await readJson(res, contentType, deadline), id);
    return { type: 'response', result: message, headers: res.headers };
  }

  /** Statuses that mean the same for every call: redirects, credential, upstream trouble. */
  async function checkStatus(res: Response): Promise<void> {
    const status = res.status;
    if ((res.type as string) === 'opaqueredirect' || (status >= 300 && status < 400)) {
      await discard(res);
      throw new McpError('redirect', `tool server answered with a redirect (HTTP ${status}); redirects are not followed`, {
        status,
      });
    }
    if (status === 401 || status === 403) {
      await discard(res);
      throw new McpError('unauthorized', `tool server rejected the credential (HTTP ${status})`, { status });
    }
    if (status === 424) {
      await discard(res);
      throw new McpError('upstream_dependency', 'tool server cannot reach its own backend (HTTP 424)', { status });
    }
    if (status >= 500) {
      await discard(res);
      throw new McpError('upstream_error', `tool server failed (HTTP ${status})`, { status });
    }
  }

  function rpcFailure(error: JsonObject, status?: number): McpError {
    const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
    const text = typeof error.message === 'string' ? error.message : 'no message';
    return new McpError('rpc_error', `tool server returned JSON-RPC error${code === undefined ? '' : ` ${code}`}: ${scrub(text)}`, {
      ...(code === undefined ? {} : { rpcCode: code }),
      ...(status === undefined ? {} : { status }),
    });
  }

  /** Checks one parsed reply (or batch) against our id and returns its result. */
  function pickResponse(reply: unknown, id: number): JsonObject {
    let message = reply;
    if (Array.isArray(reply)) {
      message =
        reply.find((m) => isObject(m) && m.id === id) ??
        reply.find((m) => isObject(m) && m.id === null && 'error' in m) ??
        reply.find((m) => isObject(m) && ('result' in m || 'error' in m));
    }
    if (!isObject(message) || message.jsonrpc !== '2.0' || !('result' in message || 'error' in message)) {
      throw new McpError('bad_response', 'tool server reply is not a JSON-RPC 2.0 response');
    }
    if ('error' in message && message.error !== undefined && (message.id === id || message.id === null)) {
      if (!isObject(message.error)) throw new McpError('bad_response', 'tool server sent a malformed JSON-RPC error');
      throw rpcFailure(message.error);
    }
    if (message.id !== id) {
      throw new McpError('bad_id', 'tool server replied to another request id');
    }
    if (!isObject(message.result)) throw new McpError('bad_response', 'tool server reply has no result object');
    return message.result;
  }

  async function readJson(res: Response, contentType: string, deadline: Deadline): Promise<unknown> {
    const bytes = await readCapped(res, maxBytes, deadline);
    const text = new TextDecoder().decode(bytes);
    try {
      return JSON.parse(text);
    } catch {
      const what = contentType.includes('html') ? 'HTML' : contentType === '' ? 'an untyped body' : 'non-JSON';
      throw new McpError('bad_response', `tool server answered with ${what}, not a JSON-RPC reply`);
    }
  }

  /** Reads a small error body and parses it as JSON when it is; anything else gives undefined. */
  async function readErrorBody(res: Response, deadline: Deadline): Promise<unknown> {
    let bytes: Uint8Array;
    try {
      bytes = await readCapped(res, Math.min(ERROR_BODY_BYTES, maxBytes), deadline);
    } catch (err) {
      if (err instanceof McpError && err.kind === 'too_large') return undefined;
      throw err;
    }
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return undefined;
    }
  }

  async function readCapped(res: Response, cap: number, deadline: Deadline): Promise<Uint8Array> {
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > cap) {
      await discard(res);
      throw tooLarge(cap);
    }
    if (res.body === null) return new Uint8Array(0);
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await readChunk(reader, deadline);
        if (done) break;
        total += value.byteLength;
        if (total > cap) {
          await cancel(reader);
          throw tooLarge(cap);
        }
        chunks.push(value);
      }
    } finally {
      reader.releaseLock();
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }

  /** Reads an SSE reply until the event carrying our response; notifications and requests are skipped. */
  async function readSse(res: Response, id: number, deadline: Deadline): Promise<JsonObject> {
    if (res.body === null) throw new McpError('bad_response', 'tool server sent an empty event stream');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let total = 0;
    let buffer = '';
    let data: string[] = [];
    let eventType = '';
    let sawOtherResponse = false;
    let found: JsonObject | undefined;
    let failure: McpError | undefined;

    const dispatch = (): void => {
      if (data.length > 0 && (eventType === '' || eventType === 'message')) {
        let message: unknown;
        try {
          message = JSON.parse(data.join('\n'));
        } catch {
          message = undefined; // a keep-alive or foreign event: not ours
        }
        for (const m of Array.isArray(message) ? message : [message]) {
          if (!isObject(m) || !('result' in m || 'error' in m) || 'method' in m) continue;
          if (m.id === id || (m.id === null && 'error' in m)) {
            try {
              found = pickResponse(m, id);
            } catch (err) {
              failure = err as McpError;
            }
            return;
          }
          sawOtherResponse = true;
        }
      }
      data = [];
      eventType = '';
    };

    const processLines = (final: boolean): void => {
      let start = 0;
      for (let i = 0; i < buffer.length && found === undefined && failure === undefined; i++) {
        const ch = buffer.charCodeAt(i);
        if (ch !== 10 && ch !== 13) continue;
        if (ch === 13 && i === buffer.length - 1 && !final) break; // maybe the \r of a \r\n split across chunks
        const line = buffer.slice(start, i);
        if (ch === 13 && buffer.charCodeAt(i + 1) === 10) i++;
        start = i + 1;
        if (line === '') {
          dispatch();
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          let value = colon === -1 ? '' : line.slice(colon + 1);
          if (value.startsWith(' ')) value = value.slice(1);
          if (field === 'data') data.push(value);
          else if (field === 'event') eventType = value;
        }
      }
      buffer = buffer.slice(start);
    };

    try {
      for (;;) {
        const { done, value } = await readChunk(reader, deadline);
        if (done) {
          buffer += decoder.decode();
          processLines(true);
          if (buffer !== '' && found === undefined && failure === undefined) {
            buffer += '\n';
            processLines(true);
          }
          if (found === undefined && failure === undefined) dispatch();
          break;
        }
        total += value.byteLength;
        if (total > maxBytes) {
          await cancel(reader);
          throw tooLarge(maxBytes);
        }
        buffer += decoder.decode(value, { stream: true });
        processLines(false);
        if (found !== undefined || failure !== undefined) {
          await cancel(reader);
          break;
        }
      }
    } finally {
      reader.releaseLock();
    }
    if (failure !== undefined) throw failure;
    if (found !== undefined) return found;
    if (sawOtherResponse) throw new McpError('bad_id', 'tool server replied to another request id');
    throw new McpError('bad_response', 'tool server event stream carried no JSON-RPC response');
  }

  async function readChunk(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    deadline: Deadline,
  ): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }> {
    try {
      const chunk = await reader.read();
      if (chunk.done) return { done: true };
      return { done: false, value: chunk.value };
    } catch (err) {
      if (deadline.expired()) throw timeoutError();
      throw new McpError('unreachable', `connection to the tool server broke while reading the reply${networkCode(err)}`);
    }
  }

  function tooLarge(cap: number): McpError {
    return new McpError('too_large', `tool server reply is larger than ${cap} bytes`);
  }

  /** One JSON-RPC call with the session strategy: direct first, then handshake and one retry. */
  async function rpc(method: string, params: JsonObject, deadline: Deadline): Promise<JsonObject> {
    const first = await post(method, params, deadline);
    if (first.type === 'response') return first.result;
    await handshake(deadline);
    const second = await post(method, params, deadline);
    if (second.type === 'response') return second.result;
    throw new McpError('bad_status', `tool server rejected the session after initialize (HTTP ${second.status})`, {
      status: second.status,
    });
  }

  function handshake(deadline: Deadline): Promise<void> {
    if (handshakeInFlight === undefined) {
      handshakeInFlight = runHandshake(deadline).finally(() => {
        handshakeInFlight = undefined;
      });
    }
    return handshakeInFlight;
  }

  async function runHandshake(deadline: Deadline): Promise<void> {
    sessionId = undefined;
    protocolVersion = undefined;
    const init = await post(
      'initialize',
      {
        protocolVersion: MCP_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: CLIENT_NAME, version: clientVersion },
      },
      deadline,
    );
    if (init.type !== 'response') {
      throw new McpError('bad_status', `tool server rejected initialize (HTTP ${init.status})`, { status: init.status });
    }
    const version = init.result.protocolVersion;
    if (typeof version !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(version)) {
      throw new McpError('bad_response', 'tool server initialize result has no valid protocolVersion');
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
    return withDeadline(async (deadline) => {
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

  async function callTool(name: string, args: Record<string, unknown>): Promise<CallResult> {
    if (typeof name !== 'string' || name === '') throw new TypeError('MCP client: tool name must be a non-empty string');
    if (args !== undefined && !isObject(args)) throw new TypeError('MCP client: tool arguments must be an object');
    return withDeadline(async (deadline) => {
      const result = await rpc('tools/call', { name, arguments: args ?? {} }, deadline);
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
      return result as CallResult;
    });
  }

  async function close(): Promise<void> {
    if (sessionId === undefined) return;
    try {
      await withDeadline(async (deadline) => {
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

  return { listTools, callTool, close };
}

function parseTool(raw: unknown): Tool {
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
    throw new McpError('bad_response', 'tools/list holds a tool without a name');
  }
  const name = raw.name;
  if (raw.description !== undefined && raw.description !== null && typeof raw.description !== 'string') {
    throw new McpError('bad_response', `tool ${name.slice(0, 100)} has a description that is not a string`);
  }
  if (!isObject(raw.inputSchema)) {
    throw new McpError('invalid_schema', `Invalid tool schema: tool ${name.slice(0, 100)}: inputSchema must be a JSON object`, {
      tool: name,
    });
  }
  return { name, description: typeof raw.description === 'string' ? raw.description : '', inputSchema: raw.inputSchema };
}

export type CheckToolServerResult = { ok: true; tools: Tool[] } | { ok: false; error: McpError };

/**
 * What registration runs: tools/list (with the session handshake when the server needs one) and
 * a JSON Schema check of every tool. Never throws an McpError: a failure comes back as `error`,
 * `invalid_schema` naming the first bad tool in `error.tool`.
 */
export async function checkToolServer(client: Pick<McpClient, 'listTools'>): Promise<CheckToolServerResult> {
  let tools: Tool[];
  try {
    tools = await client.listTools();
  } catch (err) {
    if (err instanceof McpError) return { ok: false, error: err };
    throw err;
  }
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) {
      return {
        ok: false,
        error: new McpError('invalid_schema', `Invalid tool schema: tool name ${tool.name.slice(0, 100)} appears twice`, {
          tool: tool.name,
        }),
      };
    }
    names.add(tool.name);
    const check = checkToolSchema(tool.inputSchema);
    if (!check.ok) {
      return {
        ok: false,
        error: new McpError('invalid_schema', `Invalid tool schema: tool ${tool.name.slice(0, 100)}: ${check.problem}`, {
          tool: tool.name,
        }),
      };
    }
  }
  return { ok: true, tools };
}

async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // already closed
  }
}

async function cancel(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    await reader.cancel();
  } catch {
    // already closed
  }
}

/** A short network error code (ECONNREFUSED, ENOTFOUND...) when the runtime gives one. */
function networkCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return ` (${code})`;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
}
