/**
 * Which gateway the CLI talks to, and the rules that keep a saved token from going anywhere else:
 * the URL comes from `--base-url`, `AGENT_GATEWAY_URL`, or the dev stack file of this checkout
 * (or of `DEV_DIR`, when set), never from a `.dev/stack.json` that happens to lie in the current
 * directory; plain http only to loopback hosts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './output';

/**
 * The checkout this module runs from (or, installed as a package, the package's directory): the
 * nearest directory above it holding a package.json. Sources (`src/cli/`) and the build
 * (`dist/`) sit at different depths, so it is looked up rather than counted.
 */
function packageRoot(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return dir;
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = packageRoot(fileURLToPath(import.meta.url));

/**
 * Hosts plain http may go to: the token and the sign-in never cross a network in clear text.
 * Not `*.localhost`: Node asks the DNS for those, and a hostile resolver can answer anything.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The stack file `npm run dev` of this checkout writes: `<DEV_DIR>/stack.json`, DEV_DIR resolved
 * against the checkout as scripts/dev.ts does (default `.dev`). A stack file in the current
 * directory of another repository is never read: it could name any server.
 */
export function devStackFile(env: NodeJS.ProcessEnv): string {
  return path.resolve(REPO_ROOT, env.DEV_DIR || '.dev', 'stack.json');
}

/** `{ baseUrl, collection }` of the testnet worker in the stack file, when it exists and parses. */
export function devStack(env: NodeJS.ProcessEnv): { baseUrl?: string; collection?: string; file: string } | undefined {
  const file = devStackFile(env);
  if (!existsSync(file)) return undefined;
  try {
    const stack = JSON.parse(readFileSync(file, 'utf8')) as { testnet?: { baseUrl?: string; collection?: string } };
    if (typeof stack.testnet?.baseUrl === 'string') return { ...stack.testnet, file };
  } catch {
    // a half-written stack.json: ignore it
  }
  return undefined;
}

/** `scheme://host[:port][/path]`: lower-case host, no default port, no trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the gateway URL ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('the gateway URL must be https:// (or http:// to a loopback host)');
  if (url.username || url.password) throw new UsageError('the gateway URL must not contain a user name or password');
  if (url.search || url.hash) throw new UsageError('the gateway URL must not have a query or fragment');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing plain http to ${url.host}: the token and the sign-in would cross the network unencrypted; use https:// (http:// is only for 127.0.0.1, localhost and ::1)`,
    );
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

export interface ResolvedBaseUrl {
  baseUrl: string;
  /** Where it came from, for messages: `--base-url`, `AGENT_GATEWAY_URL` or the stack file's path. */
  source: string;
}

/** `--base-url` > `AGENT_GATEWAY_URL` > the dev stack file (see `devStackFile`). */
export function resolveBaseUrlFrom(explicit: string | undefined, env: NodeJS.ProcessEnv): ResolvedBaseUrl {
  if (explicit) return { baseUrl: normalizeBaseUrl(explicit), source: '--base-url' };
  if (env.AGENT_GATEWAY_URL) return { baseUrl: normalizeBaseUrl(env.AGENT_GATEWAY_URL), source: 'AGENT_GATEWAY_URL' };
  const stack = devStack(env);
  if (stack?.baseUrl) return { baseUrl: normalizeBaseUrl(stack.baseUrl), source: stack.file };
  throw new UsageError(
    'no gateway URL: pass --base-url URL or set AGENT_GATEWAY_URL (a running `npm run dev` is found through its stack file: set DEV_DIR to its directory, e.g. DEV_DIR=/path/to/agent-gateway/.dev, unless the CLI runs from that clone, whose .dev is the default)',
  );
}
