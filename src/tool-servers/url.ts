/**
 * Tool-server URL rules (docs/tools.md): `https:` only, no userinfo, no IP literals, no local or
 * internal names, no control, whitespace or invisible characters, no fragment; stored in one
 * canonical spelling so the same server cannot be registered twice under two spellings.
 *
 * The host and port go through the one outbound policy (src/net/outbound-policy.ts), shared with
 * the database step. With the local stack's `loopbackTargets`, `http://127.0.0.1:PORT`,
 * `http://localhost:PORT` and `http://[::1]:PORT` are accepted too.
 *
 * Plain TypeScript over the WHATWG URL parser: runs in workerd and in Node.
 */
import {
  checkOutboundHost,
  checkPort,
  isIpLiteral,
  isLoopbackHost,
  PRODUCTION_POLICY,
  type OutboundOptions,
  type OutboundProblem,
} from '../net/outbound-policy';

export type UrlProblem =
  | 'empty'
  | 'too_long'
  | 'control_character'
  | 'whitespace'
  | 'invisible_character'
  | 'invalid_url'
  | 'not_https'
  | 'userinfo'
  | 'fragment'
  | OutboundProblem;

export type CanonicalUrlResult = { ok: true; url: string } | { ok: false; reason: UrlProblem; message: string };

export const MAX_TOOL_SERVER_URL_LENGTH = 2048;

// C0 controls, DEL, C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// Every Unicode white space (space, tab, NBSP, the U+2000 block, line/paragraph separators, ...).
const WHITESPACE = /[\s\u0085\u180e]/u;
// Zero-width, soft hyphen, bidi controls and other invisible formatting characters.
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: single code points (combining marks among them) on purpose
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\u{e0001}|[\u{e0020}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u;

function fail(reason: UrlProblem, message: string): CanonicalUrlResult {
  return { ok: false, reason, message };
}

/**
 * Validates a tool-server URL and returns its canonical spelling: lower-case (punycode) host,
 * no default port, path and query exactly as parsed, no fragment.
 */
export function canonicalToolServerUrl(input: string, options: OutboundOptions = PRODUCTION_POLICY): CanonicalUrlResult {
  if (typeof input !== 'string' || input.length === 0) return fail('empty', 'URL is empty');
  if (input.length > MAX_TOOL_SERVER_URL_LENGTH) {
    return fail('too_long', `URL is longer than ${MAX_TOOL_SERVER_URL_LENGTH} characters`);
  }
  // The raw string first: the URL parser strips or percent-encodes these silently.
  if (CONTROL.test(input)) return fail('control_character', 'URL contains a control character');
  if (WHITESPACE.test(input)) return fail('whitespace', 'URL contains whitespace');
  if (INVISIBLE.test(input)) {
    return fail('invisible_character', 'URL contains an invisible (zero-width or bidi) character');
  }
  if (input.includes('\\')) return fail('invalid_url', 'URL contains a backslash');

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(input)?.[1]?.toLowerCase();
  if (scheme === undefined) return fail('invalid_url', 'URL is not absolute');
  // http only for a loopback host on the local stack: checked once the host is known.
  if (scheme !== 'https' && !(options.loopbackTargets && scheme === 'http')) return fail('not_https', 'Tool-server URL must use https');
  if (!/^https?:\/\/[^/]/i.test(input)) return fail('invalid_url', 'URL must start with https://');
  if (input.includes('#')) return fail('fragment', 'URL must not contain a fragment');

  const rawAuthority = input.slice(scheme.length + '://'.length).split(/[/?]/, 1)[0] ?? '';
  if (rawAuthority.includes('@')) return fail('userinfo', 'URL must not contain credentials');

  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return fail('invalid_url', 'URL cannot be parsed');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('not_https', 'Tool-server URL must use https');
  if (url.username !== '' || url.password !== '') {
    return fail('userinfo', 'URL must not contain credentials');
  }
  if (url.hash !== '') return fail('fragment', 'URL must not contain a fragment');

  const host = url.hostname.toLowerCase();
  if (host === '') return fail('invalid_host', 'URL has no host');
  // Belt and braces for URL parsers that do not normalise every IPv4 spelling: the raw host too.
  const rawHost = rawAuthority.replace(/:[0-9]*$/, '').toLowerCase();
  if (!(options.loopbackTargets && isLoopbackHost(host)) && isIpLiteral(rawHost)) {
    return fail('ip_literal', 'URL host refused: The host must be a name, not an IP address');
  }
  const checked = checkOutboundHost(host, options);
  if (!checked.ok) return fail(checked.reason, `URL host refused: ${checked.message}`);
  if (url.protocol === 'http:' && !checked.loopback) return fail('not_https', 'Tool-server URL must use https');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const portCheck = checkPort(port, 'tool_server', checked.loopback);
  if (!portCheck.ok) return fail('port', `URL port refused: ${portCheck.message}`);

  // `url.host` omits the default port (443) and keeps any other.
  return { ok: true, url: `${url.protocol}//${url.host.toLowerCase()}${url.pathname}${url.search}` };
}
