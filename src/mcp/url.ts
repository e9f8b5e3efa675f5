/**
 * Tool-server URL rules (DESIGN §6): `https:` only, no userinfo, no IP literals, no local or
 * internal names, no control, whitespace or invisible characters, no fragment; stored in one
 * canonical spelling so the same server cannot be registered twice under two spellings.
 *
 * Plain TypeScript over the WHATWG URL parser: runs in workerd and in Node.
 */

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
  | 'ip_literal'
  | 'local_host'
  | 'single_label_host'
  | 'invalid_host';

export type CanonicalUrlResult =
  | { ok: true; url: string }
  | { ok: false; reason: UrlProblem; message: string };

export const MAX_TOOL_SERVER_URL_LENGTH = 2048;

// C0 controls, DEL, C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// Every Unicode white space (space, tab, NBSP, the U+2000 block, line/paragraph separators, ...).
const WHITESPACE = /[\s\u0085\u180e]/u;
// Zero-width, soft hyphen, bidi controls and other invisible formatting characters.
const INVISIBLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\u{e0001}|[\u{e0020}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u;

/** Suffixes of names that only resolve inside a private network (or on the machine itself). */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'lan',
  'home.arpa',
  'arpa',
  'localdomain',
];

const LOCAL_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata']);

/** An all-numeric (decimal, octal or hex) label: what IPv4 parsers accept in any spelling. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/i;
const DOTTED_IPV4 = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/;
const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function fail(reason: UrlProblem, message: string): CanonicalUrlResult {
  return { ok: false, reason, message };
}

/**
 * Validates a tool-server URL and returns its canonical spelling: lower-case (punycode) host,
 * no default port, path and query exactly as parsed, no fragment.
 */
export function canonicalToolServerUrl(input: string): CanonicalUrlResult {
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
  if (scheme !== 'https') return fail('not_https', 'Tool-server URL must use https');
  if (!/^https:\/\/[^/]/i.test(input)) return fail('invalid_url', 'URL must start with https://');
  if (input.includes('#')) return fail('fragment', 'URL must not contain a fragment');

  const rawAuthority = input.slice('https://'.length).split(/[/?]/, 1)[0] ?? '';
  if (rawAuthority.includes('@')) return fail('userinfo', 'URL must not contain credentials');

  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return fail('invalid_url', 'URL cannot be parsed');
  }
  if (url.protocol !== 'https:') return fail('not_https', 'Tool-server URL must use https');
  if (url.username !== '' || url.password !== '') {
    return fail('userinfo', 'URL must not contain credentials');
  }
  if (url.hash !== '') return fail('fragment', 'URL must not contain a fragment');

  const host = url.hostname.toLowerCase();
  if (host === '') return fail('invalid_host', 'URL has no host');
  if (host.startsWith('[') || host.includes(':')) {
    return fail('ip_literal', 'URL host must be a name, not an IP address');
  }
  if (DOTTED_IPV4.test(host)) return fail('ip_literal', 'URL host must be a name, not an IP address');
  // Belt and braces for URL parsers that do not normalise every IPv4 spelling.
  const rawHost = rawAuthority.replace(/:[0-9]*$/, '').toLowerCase();
  const rawLabels = rawHost.split('.').filter((label) => label !== '');
  if (rawLabels.length > 0 && rawLabels.every((label) => NUMERIC_LABEL.test(label))) {
    return fail('ip_literal', 'URL host must be a name, not an IP address');
  }
  if (host.endsWith('.')) return fail('invalid_host', 'URL host must not end with a dot');
  const labels = host.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (NUMERIC_LABEL.test(last)) return fail('ip_literal', 'URL host must be a name, not an IP address');

  if (LOCAL_NAMES.has(host) || LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
    return fail('local_host', 'URL host must be a public name, not a local or internal one');
  }
  if (labels.length < 2) return fail('single_label_host', 'URL host must be a fully qualified name');
  if (host.length > 253 || !labels.every((label) => HOST_LABEL.test(label))) {
    return fail('invalid_host', 'URL host is not a valid DNS name');
  }

  // `url.host` omits the default port (443) and keeps any other.
  return { ok: true, url: `https://${url.host.toLowerCase()}${url.pathname}${url.search}` };
}
