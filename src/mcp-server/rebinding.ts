/**
 * DNS-rebinding protection of the agents' MCP servers (the Streamable HTTP transport's security
 * rule): a page on another site must not reach an MCP server through a browser, neither by
 * pointing its own host name at the gateway (a foreign `Host`) nor by calling it cross-origin (a
 * foreign `Origin`). Refused with 403 before any credential is read or any handler runs.
 *
 * - `Host` must be the deployment's own (`SIWE_URI`'s host); on the local stack also a loopback
 *   name (`localhost`, `127.x.x.x`, `[::1]`) on any port.
 * - `Origin`, when present, must be the gateway's own origin or one of `MCP_ALLOWED_ORIGINS`; on
 *   the local stack also a loopback origin. No `Origin` (a program, not a page) is fine.
 */
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { AppBindings } from '../types';

const LOOPBACK_NAME = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/** The host name of a `Host` header value (`name[:port]`, IPv6 in brackets); undefined if it is anything more. */
function hostName(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    return url.pathname === '/' && url.username === '' && url.search === '' ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `host` (a `Host` header value) names this deployment. */
export function hostAllowed(host: string, config: Config): boolean {
  const own = new URL(config.siweUri);
  const value = host.trim().toLowerCase();
  if (value === own.host) return true;
  if (!config.dev.localStack) return false;
  const name = hostName(value);
  return name !== undefined && LOOPBACK_NAME.test(name);
}

/** Whether a page of `origin` (an `Origin` header value) may call the MCP server. */
export function originAllowed(origin: string, config: Config): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (an opaque origin) and anything else that is not an origin
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase()) return false;
  if (url.origin === new URL(config.siweUri).origin || config.mcpAllowedOrigins.includes(url.origin)) return true;
  return config.dev.localStack && LOOPBACK_NAME.test(url.hostname);
}

/** The MCP route's first gate: a foreign `Host` is 403 `host_not_allowed`, a foreign `Origin` 403 `origin_not_allowed`. */
export function mcpRebindingGuard(): MiddlewareHandler<AppBindings> {
  return async function mcpRebindingGuardMiddleware(c, next) {
    const { config } = c.var;
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!hostAllowed(host, config)) {
      throw new AppError('host_not_allowed', "The Host header must name this gateway's own host (DNS-rebinding protection)");
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !originAllowed(origin, config)) {
      throw new AppError(
        'origin_not_allowed',
        'Requests from this Origin are not allowed: it is neither the gateway nor in MCP_ALLOWED_ORIGINS',
      );
    }
    await next();
  };
}
