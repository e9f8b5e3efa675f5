import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Config } from '../config';
import type { AppBindings } from '../types';

/** The kind of credential a request presented (by its form; whether it was accepted is the status). */
export type CredentialKind = 'jwt' | 'agent_key' | 'oauth' | 'none';

/** The one log line of a request (docs/configuration.md, Logs and traces): never a token, key, query string, body or raw path. */
export interface RequestLogLine {
  level: 'info' | 'error';
  event: 'request';
  /** As in `X-Request-Id`. */
  requestId: string;
  method: string;
  /** The matched route's pattern (`/agent/:agentCollectionAddress/:agentTokenId/context/:contextKey`); null when none matched. */
  route: string | null;
  status: number;
  /** From the request's arrival to the response returned; for a streamed response, to the stream's end. */
  durationMs: number;
  /** The deployment's chain; null when its configuration could not be read. */
  chainId: number | null;
  /** `collection/tokenId` (collection in lower case) when the path names an agent. */
  agent: string | null;
  credential: CredentialKind;
  /** Present on a streamed response (server-sent events): logged when the stream ended. */
  streamed?: true;
}

const AGENT_PATH = /^\/agent\/(0x[0-9a-fA-F]{40})\/(0|[1-9][0-9]{0,77})(?:\/|$)/;
const JWT_BEARER = /^Bearer\s+eyJ[\w-]*\.[\w-]*\.[\w-]*\s*$/;
const KEY_BEARER = /^Bearer\s+agk_/;
/** An OAuth access token's form (`{userId}:{grantId}:{secret}`, src/oauth/access-token.ts). */
const OAUTH_BEARER = /^Bearer\s+[^\s:]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+\s*$/;

/** The credential kind of an Authorization header, by its form alone. */
export function credentialOf(header: string | undefined): CredentialKind {
  if (!header) return 'none';
  // The scheme's name is case-insensitive, as the bearer gate reads it (src/access/bearer.ts).
  const authorization = header.replace(/^bearer(?= )/i, 'Bearer');
  if (KEY_BEARER.test(authorization)) return 'agent_key';
  if (JWT_BEARER.test(authorization)) return 'jwt';
  if (OAUTH_BEARER.test(authorization)) return 'oauth';
  return 'none';
}

/** The pattern of the route that serves the request (middleware registered with `use` is `ALL`). */
function routeOf(c: Context<AppBindings>): string | null {
  return matchedRoutes(c).findLast((r) => r.method !== 'ALL')?.path ?? null;
}

function agentOf(path: string): string | null {
  const match = AGENT_PATH.exec(path);
  return match ? `${match[1]!.toLowerCase()}/${match[2]}` : null;
}

/**
 * One JSON line per request in the worker's log (Workers Logs when deployed; `.dev/<name>.log`
 * locally): request id, method, route pattern, status, duration, chain, agent, credential kind.
 * Built only from the route table, the status and the shapes of the path and the Authorization
 * header, so a token, a key, a query string value or a context key cannot reach it. A streamed
 * response is logged when its stream ends (or is cancelled), with the duration up to then.
 */
export function requestLog(): MiddlewareHandler<AppBindings> {
  return async function requestLogMiddleware(c, next) {
    const started = Date.now();
    await next();
    const res = c.res;
    const line = (): RequestLogLine => ({
      level: res.status >= 500 ? 'error' : 'info',
      event: 'request',
      requestId: c.var.requestId,
      method: c.req.method,
      route: routeOf(c),
      status: res.status,
      durationMs: Date.now() - started,
      chainId: (c.get('config') as Config | undefined)?.chainId ?? null,
      agent: agentOf(c.req.path),
      credential: credentialOf(c.req.header('authorization')),
    });
    if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      writeLine(line());
      return;
    }
    let logged = false;
    const once = () => {
      if (logged) return;
      logged = true;
      writeLine({ ...line(), streamed: true });
    };
    c.res = new Response(res.body.pipeThrough(new TransformStream({ flush: once, cancel: once })), res);
  };
}

function writeLine(line: RequestLogLine): void {
  const text = JSON.stringify(line);
  if (line.level === 'error') console.error(text);
  else console.info(text);
}
