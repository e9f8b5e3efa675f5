/**
 * Saved logins: `~/.agent-gateway/token-<chainId>.json` (or `--token-file`,
 * `AGENT_GATEWAY_TOKEN_FILE`) holds one entry per gateway base URL,
 * `{ "logins": { "<baseUrl>": { token, chainId, wallet, baseUrl, expiresAt } } }`, file mode 0600
 * in a 0700 directory, written atomically (temporary file + rename). A token is only ever read
 * back for the base URL it was issued by, so a token of one gateway is never sent to another.
 * A file of the older one-login shape is read as one entry under its `baseUrl`.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './output';
import { writePrivateFile } from './private-file';

export interface SavedToken {
  token: string;
  chainId: number;
  wallet: string;
  /** The normalized base URL the token was issued by (see gateway-url.ts). */
  baseUrl: string;
  /** ISO 8601, or null when the token has no exp claim. */
  expiresAt: string | null;
}

/** `--token-file` > `AGENT_GATEWAY_TOKEN_FILE` > `~/.agent-gateway/token-<chainId>.json`. */
export function tokenFilePath(explicit: string | undefined, env: NodeJS.ProcessEnv, chainId: number): string {
  const chosen = explicit ?? (env.AGENT_GATEWAY_TOKEN_FILE || undefined);
  if (chosen) return path.resolve(chosen);
  return path.join(os.homedir(), '.agent-gateway', `token-${chainId}.json`);
}

function entryOf(value: unknown): SavedToken | undefined {
  const v = value as Partial<SavedToken> | null;
  if (typeof v !== 'object' || v === null || typeof v.token !== 'string' || typeof v.chainId !== 'number') return undefined;
  if (typeof v.baseUrl !== 'string' || v.baseUrl === '') return undefined; // unbound: never used
  return {
    token: v.token,
    chainId: v.chainId,
    wallet: typeof v.wallet === 'string' ? v.wallet : '',
    baseUrl: v.baseUrl,
    expiresAt: typeof v.expiresAt === 'string' ? v.expiresAt : null,
  };
}

/** Every saved login of the file by base URL; empty when the file does not exist. */
export async function readLogins(file: string): Promise<Map<string, SavedToken>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new CliError(`cannot read the token file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: { logins?: unknown; token?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new CliError(`the token file ${file} is not JSON; run agent-gateway login again`);
  }
  const logins = new Map<string, SavedToken>();
  const candidates = typeof parsed.logins === 'object' && parsed.logins !== null ? Object.values(parsed.logins) : [parsed];
  for (const candidate of candidates) {
    const entry = entryOf(candidate);
    if (entry) logins.set(entry.baseUrl, entry);
  }
  return logins;
}

/** The login saved for exactly this base URL, or undefined. */
export async function readToken(file: string, baseUrl: string): Promise<SavedToken | undefined> {
  return (await readLogins(file)).get(baseUrl);
}

/** Saves `saved` under its base URL, keeping the entries of other gateways. */
export async function saveToken(file: string, saved: SavedToken): Promise<void> {
  const logins = await readLogins(file).catch(() => new Map<string, SavedToken>());
  logins.set(saved.baseUrl, saved);
  await writeLogins(file, logins);
}

/**
 * Removes the login saved for `baseUrl`, keeping the other gateways' (the file goes when none is
 * left). Resolves with whether there was one: removing it again changes nothing.
 */
export async function removeToken(file: string, baseUrl: string): Promise<boolean> {
  const logins = await readLogins(file);
  if (!logins.delete(baseUrl)) return false;
  if (logins.size > 0) await writeLogins(file, logins);
  else await rm(file, { force: true });
  return true;
}

/**
 * The token files a login for `baseUrl` may be in, without asking the gateway its chain: the
 * one named by `--token-file` or `AGENT_GATEWAY_TOKEN_FILE`, else every
 * `~/.agent-gateway/token-<chainId>.json`.
 */
export async function candidateTokenFiles(explicit: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  const chosen = explicit ?? (env.AGENT_GATEWAY_TOKEN_FILE || undefined);
  if (chosen) return [path.resolve(chosen)];
  const dir = path.join(os.homedir(), '.agent-gateway');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => /^token-\d+\.json$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
}

async function writeLogins(file: string, logins: Map<string, SavedToken>): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writePrivateFile(file, `${JSON.stringify({ logins: Object.fromEntries(logins) }, null, 2)}\n`, `the token file ${file}`);
}
