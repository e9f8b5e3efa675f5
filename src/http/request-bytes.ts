import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';

/**
 * What the 400 responses of the OpenAPI document say about bytes that cannot be stored: the
 * checks below and the JSON body's (./json-body) run on every route before any other check.
 */
export const REQUEST_BYTES_ERRORS =
  '`invalid_encoding` (broken percent-encoding such as `%zz` in the path or query, a body that is not UTF-8, or a JSON string or key in the body holding a lone surrogate such as `\\ud800`), `nul_character` (a NUL, e.g. `%00` or `\\u0000`, anywhere in the path, query or body)';

const BROKEN_PERCENT = /%(?![0-9A-Fa-f]{2})/;

export function invalidEncoding(where: string): AppError {
  return new AppError('invalid_encoding', `The ${where} is not valid UTF-8 or has broken percent-encoding`, { details: { where } });
}

export function nulCharacter(where: string): AppError {
  return new AppError('nul_character', `The ${where} contains a NUL character, which cannot be stored`, { details: { where } });
}

/** One percent-encoded component, decoded; throws the matching AppError when it cannot be. */
function decodeComponent(raw: string, where: string, plusIsSpace: boolean): string {
  if (BROKEN_PERCENT.test(raw)) throw invalidEncoding(where);
  let text: string;
  try {
    text = decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    throw invalidEncoding(where); // percent-encoded bytes that are not UTF-8, e.g. %ff
  }
  if (text.includes('\u0000')) throw nulCharacter(where);
  return text;
}

/** Throws unless every path segment and query name and value decodes to NUL-free UTF-8. */
export function checkRequestUrl(url: string): void {
  const { pathname, search } = new URL(url);
  for (const segment of pathname.split('/')) decodeComponent(segment, 'path', false);
  if (search.length <= 1) return;
  for (const pair of search.slice(1).split('&')) {
    for (const part of pair.split('=')) decodeComponent(part, 'query', true);
  }
}

/**
 * The first string in a parsed JSON value (keys included) that cannot be stored as sent: one
 * holding a NUL (`nul`), or one that is not well-formed UTF-16, i.e. holds a lone surrogate such
 * as `"\ud800"` (`surrogate`), which UTF-8 storage would silently replace with U+FFFD.
 */
export function badString(value: unknown): 'nul' | 'surrogate' | null {
  const check = (text: string) => (text.includes('\u0000') ? 'nul' : text.isWellFormed() ? null : 'surrogate');
  if (typeof value === 'string') return check(value);
  if (Array.isArray(value)) {
    for (const inner of value) {
      const bad = badString(inner);
      if (bad) return bad;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const bad = check(key) ?? badString(inner);
      if (bad) return bad;
    }
  }
  return null;
}

/**
 * Bytes Postgres cannot store (NUL) or that would be silently replaced (broken encodings) are
 * refused with 400 before routing, on every path: never a 500 from the database, never a 404
 * for a key that was not what the client sent.
 */
export function storableUrl(): MiddlewareHandler<AppBindings> {
  return async function storableUrlMiddleware(c, next) {
    checkRequestUrl(c.req.url);
    await next();
  };
}

interface RouteDefinitions {
  definitions: { type: string; route?: { responses: Record<string, unknown> } }[];
}

/**
 * The checks above run on every route, so every operation's 400 response names their codes
 * (added to the route's own 400, or as its 400). Call once the routers are mounted.
 */
export function documentRequestBytesErrors(registry: RouteDefinitions, errorResponse: (description: string) => unknown): void {
  for (const definition of registry.definitions) {
    if (definition.type !== 'route' || !definition.route) continue;
    const responses = definition.route.responses;
    const own = responses['400'] as { description?: string } | undefined;
    if (own?.description?.includes('`nul_character`')) continue;
    const description = own?.description ? `${own.description}; ${REQUEST_BYTES_ERRORS}` : REQUEST_BYTES_ERRORS;
    definition.route = {
      ...definition.route,
      responses: { ...responses, 400: own ? { ...own, description } : errorResponse(description) },
    };
  }
}
