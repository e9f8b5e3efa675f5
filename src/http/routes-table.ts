import type { Env, MiddlewareHandler } from 'hono';

const RECENT_PATHS = 256;

/** A compiled view of the app's routes: which methods each path pattern accepts. */
export interface RouteTable {
  /** Methods registered for the concrete path, empty when no route has that path. */
  methodsFor(path: string): string[];
}

interface RouteLike {
  method: string;
  path: string;
}

/**
 * Builds the table from hono's `app.routes` (or route definitions: `{param}` reads as `:param`),
 * ignoring middleware (`ALL` on wildcards).
 */
export function compileRouteTable(routes: readonly RouteLike[]): RouteTable {
  const patterns = new Map<string, { regex: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    const method = route.method.toUpperCase();
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    if (method === 'ALL' || path.includes('*')) continue;
    let entry = patterns.get(path);
    if (!entry) {
      const source = path
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegex(segment)))
        .join('/');
      entry = { regex: new RegExp(`^${source}/?$`), methods: new Set() };
      patterns.set(path, entry);
    }
    entry.methods.add(method);
    if (method === 'GET') entry.methods.add('HEAD');
  }
  // Several middlewares ask about the same path in one request: remember recent answers (bounded).
  const recent = new Map<string, string[]>();
  return {
    methodsFor(path) {
      const known = recent.get(path);
      if (known) return known;
      const methods = new Set<string>();
      for (const entry of patterns.values()) {
        if (entry.regex.test(path)) for (const m of entry.methods) methods.add(m);
      }
      const answer = [...methods].sort();
      if (recent.size >= RECENT_PATHS) recent.delete(recent.keys().next().value!);
      recent.set(path, answer);
      return answer;
    },
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Runs `middleware` only for requests a route will serve; others go on to the 404/405 handler. */
export function onKnownRoutes<E extends Env>(routes: () => RouteTable, middleware: MiddlewareHandler<E>): MiddlewareHandler<E> {
  return async function knownRoutesOnly(c, next) {
    if (!routes().methodsFor(c.req.path).includes(c.req.method)) return next();
    return middleware(c, next);
  };
}

/** True for an operation that declares `security: []`: public, no credential and no agent gate. */
export function isPublic(route: { security?: unknown }): boolean {
  return Array.isArray(route.security) && route.security.length === 0;
}

/**
 * The routes the agent gates run on: every route of `all` but the public operations among
 * `definitions` (those with `security: []`, e.g. the registration file). The exemption is the
 * route's own declaration, so the OpenAPI document and the gates cannot disagree.
 */
export function gatedRoutes(
  all: () => RouteTable,
  definitions: () => readonly { type: string; route?: RouteLike & { security?: unknown } }[],
): () => RouteTable {
  let open: RouteTable | undefined;
  const publicRoutes = () =>
    (open ??= compileRouteTable(definitions().flatMap((d) => (d.type === 'route' && d.route && isPublic(d.route) ? [d.route] : []))));
  return () => ({
    methodsFor(path) {
      const exempt = publicRoutes().methodsFor(path);
      return all()
        .methodsFor(path)
        .filter((m) => !exempt.includes(m));
    },
  });
}
