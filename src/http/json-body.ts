import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { badString, invalidEncoding, nulCharacter } from './request-bytes';
import type { RouteTable } from './routes-table';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPE = /^application\/json\s*(;|$)/i;
/** Nesting of arrays and objects a body may have: checked on the raw text before anything recurses. */
export const MAX_JSON_DEPTH = 64;
/** Throws on bytes that are not UTF-8 instead of replacing them with U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Every body-carrying request to a known route must be JSON: anything else is 415, a body that
 * does not parse, or nests arrays and objects deeper than `MAX_JSON_DEPTH` (counted on the raw
 * text, before parsing or any walk over the value can recurse), is 400 `invalid_json`, one that is not UTF-8, or holds a
 * string or key with a lone surrogate (`"\ud800"`), 400 `invalid_encoding` (never stored
 * with U+FFFD in place of the bad bytes or escapes), one with a NUL in any string 400
 * `nul_character`. Unknown routes fall through to the 404/405 handler. The body stays cached on
 * the request for the route's validator.
 */
export function jsonBody(routes: () => RouteTable, options: { formPaths?: readonly string[] } = {}): MiddlewareHandler<AppBindings> {
  const formPaths = new Set(options.formPaths ?? []);
  return async function jsonBodyMiddleware(c, next) {
    // A form-encoded route (the OAuth token endpoint) is checked by its own schema.
    if (!BODY_METHODS.has(c.req.method) || formPaths.has(c.req.path) || !routes().methodsFor(c.req.path).includes(c.req.method)) {
      return next();
    }
    const type = c.req.header('content-type') ?? '';
    if (!JSON_TYPE.test(type)) {
      throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    }
    const bytes = await c.req.arrayBuffer(); // the body limit's own errors pass through
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      throw invalidEncoding('body');
    }
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new AppError('invalid_json', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('invalid_json', 'The request body is not valid JSON');
    }
    const bad = badString(parsed);
    if (bad === 'nul') throw nulCharacter('body');
    if (bad === 'surrogate')
      throw new AppError(
        'invalid_encoding',
        'The body holds a string or key with a lone surrogate (e.g. \\ud800), which is not valid Unicode',
        { details: { where: 'body' } },
      );
    await next();
  };
}

/**
 * Whether `text` opens more than `limit` arrays and objects at once, counting `[` and `{` outside
 * strings: one pass, no recursion, no allocation. Malformed text is left to JSON.parse.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return false;
}
