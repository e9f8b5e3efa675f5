/**
 * The MCP revisions our tool client speaks (docs/tools.md). With a handshake: it offers
 * {@link OFFERED_REVISION} in `initialize` and accepts what the server negotiates down to, among
 * {@link HANDSHAKE_REVISIONS}. Without one: {@link STATELESS_REVISION} (SEP-2575), where every
 * request names its revision, client and capabilities in `params._meta` and in headers, and
 * `server/discover` tells what a server speaks.
 *
 * What we assumed of 2026-07-28 (docs/tools.md "MCP revisions tested"): the `_meta` keys
 * `io.modelcontextprotocol/protocolVersion`, `…/clientInfo` and `…/clientCapabilities` on every
 * request; the `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call) `Mcp-Name` headers;
 * `server/discover` answering `{ supportedVersions, capabilities, serverInfo }`; a request
 * without a revision refused with HTTP 400 (`UnsupportedProtocolVersionError`, -32022). The MCP
 * SDK's v2 server (2.4.0) speaks it so (test/integration/tool-servers-v2.test.ts); it also
 * requires `Mcp-Name` on every tool call, Base64-wrapped when the name is not plain ASCII.
 */
import { isObject, type JsonObject, MCP_PROTOCOL_VERSION } from './types';

/** What `initialize` offers: the current SDK's revision. */
export const OFFERED_REVISION = MCP_PROTOCOL_VERSION;
/** The handshake revisions a server may negotiate down to, newest first. */
export const HANDSHAKE_REVISIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** The stateless revision: no `initialize`, every request carries its revision. */
export const STATELESS_REVISION = '2026-07-28';
/** JSON-RPC code of the stateless revision's `UnsupportedProtocolVersionError`. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** A header value we may send as it is: printable ASCII without spaces at the ends. */
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** A value in this wrapping is Base64 of UTF-8 (how the revision carries any other value in a header). */
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';

/** True for a revision the server may answer `initialize` with. */
export function isHandshakeRevision(version: string): boolean {
  return HANDSHAKE_REVISIONS.includes(version);
}

/** `params` of a stateless request: the caller's, with the revision, client and capabilities in `_meta`. */
export function statelessParams(params: JsonObject, client: { name: string; version: string }): JsonObject {
  const meta = isObject(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: { ...meta, [META_VERSION]: STATELESS_REVISION, [META_CLIENT]: client, [META_CAPABILITIES]: {} },
  };
}

/** The headers of a stateless request: its revision, `Mcp-Method`, and `Mcp-Name` for a tool call. */
export function statelessHeaders(method: string, params: JsonObject): Record<string, string> {
  const headers: Record<string, string> = { 'MCP-Protocol-Version': STATELESS_REVISION, 'Mcp-Method': method };
  if (method === 'tools/call' && typeof params.name === 'string') headers['Mcp-Name'] = headerValue(params.name);
  return headers;
}

/**
 * A value as the stateless revision puts it in a header: as it is when it is plain printable ASCII,
 * else (non-ASCII, spaces at the ends, empty, or looking like the wrapping itself) Base64 of its
 * UTF-8 in `=?base64?…?=`.
 */
export function headerValue(value: string): string {
  const wrapped = value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX);
  if (!wrapped && HEADER_SAFE.test(value)) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${BASE64_PREFIX}${btoa(binary)}${BASE64_SUFFIX}`;
}

/** True when a `server/discover` result says the server speaks the stateless revision. */
export function speaksStateless(result: JsonObject): boolean {
  return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(STATELESS_REVISION);
}
