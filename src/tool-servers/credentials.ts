/**
 * The configured credential: which header names and values may carry one, checking the client's
 * `auth` option, putting it on a request, and keeping it out of error messages.
 */
import { scrub } from '../scrub';
import type { McpAuth } from './types';

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

/**
 * Checks the client's `auth` option (a TypeError when it is unusable) and returns the strings
 * that error messages must never show.
 */
export function credentialSecrets(auth: McpAuth): string[] {
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
  return secrets;
}

/** Sets the credential's header, if any. */
export function setCredentialHeader(headers: Headers, auth: McpAuth): void {
  if (auth.type === 'bearer') headers.set('Authorization', `Bearer ${auth.token}`);
  else if (auth.type === 'header') headers.set(auth.name, auth.value);
}

const MAX_UPSTREAM_TEXT = 300;

/** Upstream text for an error message: one line, short, and never the credential. */
export function upstreamText(text: unknown, secrets: readonly string[]): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const line = (typeof text === 'string' ? text : String(text)).replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const out = scrub(line, { secrets, minLength: 1 });
  return out.length > MAX_UPSTREAM_TEXT ? `${out.slice(0, MAX_UPSTREAM_TEXT)}...` : out;
}
