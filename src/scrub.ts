/**
 * The one secret scrubber, for log lines (worker), error messages (client), printed output (CLI)
 * and upstream text (MCP). Plain string work only: no runtime-specific imports, so the worker,
 * the published client and the CLI can all import it.
 */

/** What a scrubbed value is replaced with. */
export const MASK = '***';

/** Anything shaped like a JWT: a base64url JSON header (`eyJ`), a payload and a (maybe empty) signature. */
export const JWT_SHAPE = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;

/** The `user:password@` of a URL such as `postgresql://user:password@host/db`. */
const URL_CREDENTIALS = /\/\/[^/\s:@]+:[^@\s]+@/g;

export interface ScrubOptions {
  /** Exact values to mask wherever they occur (undefined entries and short values are skipped). */
  secrets?: Iterable<string | undefined>;
  /** Secrets shorter than this are left alone: masking them would garble every line (default 8). */
  minLength?: number;
  /** Also mask anything shaped like a JWT. */
  jwts?: boolean;
  /** Also mask the credentials of URLs (`//user:password@` becomes `//***@`). */
  urlCredentials?: boolean;
}

/** `text` with every secret of `options` masked. */
export function scrub(text: string, options: ScrubOptions): string {
  const minLength = Math.max(1, options.minLength ?? 8);
  let out = text;
  for (const secret of options.secrets ?? []) {
    if (secret !== undefined && secret.length >= minLength) out = out.split(secret).join(MASK);
  }
  if (options.urlCredentials) out = out.replace(URL_CREDENTIALS, `//${MASK}@`);
  if (options.jwts) out = out.replace(JWT_SHAPE, MASK);
  return out;
}

/** Scrubs every string inside a JSON value (e.g. error `details`) without changing its shape. */
export function scrubValue(value: unknown, options: ScrubOptions): unknown {
  if (typeof value === 'string') return scrub(value, options);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, options));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, options)]));
  }
  return value;
}

/** A line for the worker's log: credentials in URLs and anything shaped like a JWT masked. */
export function scrubLogLine(text: string): string {
  return scrub(text, { urlCredentials: true, jwts: true });
}
