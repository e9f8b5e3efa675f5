/**
 * `format` checks that cannot pin the isolate. `@cfworker/json-schema` checks formats
 * with backtracking regexes; its `url` regex (`(?:[a-z…0-9]+-?)*[a-z…0-9]+`) takes exponential time
 * (a 30-character string already runs for seconds). `hardenFormats` replaces the `url` check with
 * the WHATWG URL parser and puts a length cap in front of every check: a value longer than any
 * valid one fails the format without reaching a regex, and the regexes (measured against long
 * evil strings in test/unit/mcp-limits.test.ts) stay fast up to the caps.
 *
 * Changes the library's exported `format` table in place, once per isolate; idempotent.
 */
import { format } from '@cfworker/json-schema';

/** Longest value each format accepts. */
export const FORMAT_MAX_CHARS: Readonly<Record<string, number>> = {
  date: 10,
  time: 64,
  'date-time': 64,
  duration: 64,
  uri: 2_048,
  'uri-reference': 2_048,
  'uri-template': 2_048,
  url: 2_048,
  email: 320,
  hostname: 253,
  ipv4: 15,
  ipv6: 45,
  regex: 1_000,
  uuid: 36,
  'json-pointer': 2_048,
  'json-pointer-uri-fragment': 2_048,
  'relative-json-pointer': 2_048,
};

/** Any other format the library may add: capped all the same. */
const DEFAULT_MAX_CHARS = 2_048;

const NativeRegExp = RegExp;
const Z_ANCHOR = /[^\\]\\Z/;

/** `url`: an absolute http, https or ftp URL, parsed by the WHATWG parser (linear time). */
function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:', 'ftp:'].includes(url.protocol) && url.hostname !== '' && !/\s/.test(value);
  } catch {
    return false;
  }
}

/** `regex`: a valid ECMAScript regex (compiled by the native engine: compiling never backtracks). */
function isRegex(value: string): boolean {
  if (Z_ANCHOR.test(value)) return false;
  try {
    new NativeRegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
}

let hardened = false;

export function hardenFormats(): void {
  if (hardened) return;
  hardened = true;
  const table = format as Record<string, (value: string) => boolean>;
  table.url = isUrl;
  table.regex = isRegex;
  for (const [name, check] of Object.entries(table)) {
    const max = FORMAT_MAX_CHARS[name] ?? DEFAULT_MAX_CHARS;
    table[name] = (value: string) => value.length <= max && check(value);
  }
}
