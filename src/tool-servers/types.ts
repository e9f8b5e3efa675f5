/**
 * The MCP client's public vocabulary: failure kinds, `McpError`, the option and result types and
 * the limits. Re-exported by `./client`, which is where callers import them from.
 */
export type McpFailure =
  /** 401/403: the tool server rejected the credential. */
  | 'unauthorized'
  /** 401 with an MCP OAuth challenge (`WWW-Authenticate: Bearer resource_metadata=...`): the server wants OAuth. */
  | 'oauth_required'
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

export type McpAuth = { type: 'none' } | { type: 'bearer'; token: string } | { type: 'header'; name: string; value: string };

export interface McpClientOptions {
  url: string;
  auth: McpAuth;
  /**
   * Deadline of one public operation (handshake, retry and every page included). Default 10 s. For
   * tools/call, each progress notification restarts it, up to `ceilingMs`.
   */
  timeoutMs?: number;
  /** Absolute limit of one tools/call however much progress it sends, ms. Default: `timeoutMs`. */
  ceilingMs?: number;
  /** A session kept from an earlier request: sent until the server drops it. */
  session?: McpSession;
  /** Byte cap of one reply. Default 1 MiB. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
  /** Sent as clientInfo.version in `initialize`. */
  clientVersion?: string;
  /**
   * Open with `initialize`, as MCP asks of a client, when no session is kept (registration); a server
   * that refuses it with a JSON-RPC error or HTTP 404/405 (a plain server) is reached without one.
   */
  handshakeFirst?: boolean;
  /** Handshakes shared with the other clients of the same connection (./tool-session.ts). */
  handshakes?: HandshakeShare;
}

/**
 * Where the clients of one connection in an isolate (each request makes its own) share a
 * re-handshake: when many find the same session dropped at once, one `initialize` opens the new
 * session for all of them.
 */
export interface HandshakeShare {
  /**
   * The session that replaces `dropped`: `open`'s, or that of a handshake another client started
   * (or ended) for the same dropped session. A failed handshake is not kept.
   */
  replace(dropped: McpSession | undefined, open: () => Promise<McpSession | undefined>): Promise<McpSession | undefined>;
}

/** An icon of a tool (MCP's `Icon`): `src` is required. */
export type ToolIcon = JsonObject & { src: string };

/** An MCP session: the server's `Mcp-Session-Id` (absent when it gave none) and the negotiated version. */
export interface McpSession {
  id?: string;
  protocolVersion: string;
}

/**
 * A tool as MCP defines it (every field kept; ./tool-rules bounds each). Extra fields a server sends
 * beyond MCP's shape are dropped.
 */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  execution?: JsonObject;
  icons?: ToolIcon[];
  _meta?: JsonObject;
}

export interface ContentItem {
  type: string;
  [key: string]: unknown;
}

export interface CallResult {
  content: ContentItem[];
  structuredContent?: JsonObject;
  isError?: boolean;
  [key: string]: unknown;
}

export interface McpClient {
  /** tools/list, following `nextCursor` (at most 20 pages and 1000 tools). */
  listTools(): Promise<Tool[]>;
  /**
   * tools/call; resolves with the result, also when the tool reports `isError: true`. `signal`: the
   * caller stopped waiting (a reply that ended); the call is abandoned at once, as a `timeout`.
   */
  callTool(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallResult>;
  /** Ends the server-side session, if one was opened (best effort, never throws). */
  close(): Promise<void>;
  /** The session in use now (after a handshake), to keep for the next request; undefined: none. */
  session(): McpSession | undefined;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Deadline of the DELETE that ends a session: short, so a hanging server never doubles a request's time. */
export const SESSION_CLOSE_TIMEOUT_MS = 1_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** The MCP revision the tool client offers in `initialize` (./revisions: what it accepts back). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';
export const MAX_TOOL_PAGES = 20;
export const MAX_TOOLS = 1000;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
