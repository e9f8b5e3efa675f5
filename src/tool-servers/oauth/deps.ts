import type { McpDeps } from '../tool-session';
import type { OAuthFetchDeps } from './fetch-json';

/** What the OAuth flow needs beside a tool server's deps: the gateway's origin (redirect URI, client id) and the KV of pending states. */
export interface OAuthDeps extends McpDeps {
  origin: string;
  kv: KVNamespace;
}

/** The outbound request deps of the flow: the tool servers' fetch, policy and deadline. */
export function fetchDeps(deps: McpDeps): OAuthFetchDeps {
  return { ...(deps.fetch ? { fetch: deps.fetch } : {}), outbound: deps.outbound, timeoutMs: deps.timeoutMs ?? 10_000 };
}

/** Whether `deps` can mint an authorize URL (the direct routes can; a reply's tool calls cannot). */
export function canAuthorize(deps: McpDeps): deps is OAuthDeps {
  const d = deps as Partial<OAuthDeps>;
  return typeof d.origin === 'string' && d.kv !== undefined;
}
