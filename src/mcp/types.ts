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

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
