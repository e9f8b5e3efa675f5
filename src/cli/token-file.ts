/**
 * The saved login: `{ token, chainId, wallet, baseUrl, expiresAt }` in
 * `~/.agent-gateway/token-<chainId>.json` (or `--token-file`, `AGENT_GATEWAY_TOKEN_FILE`),
 * file mode 0600 in a 0700 directory, written atomically (temporary file + rename).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './output';

export interface SavedToken {
  token: string;
  chainId: number;
  wallet: string;
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

export async function saveToken(file: string, saved: SavedToken): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temporary, 0o600);
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw new CliError(`cannot write the token file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** The saved login, or undefined when the file does not exist. */
export async function readToken(file: string): Promise<SavedToken | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the token file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: Partial<SavedToken>;
  try {
    parsed = JSON.parse(text) as Partial<SavedToken>;
  } catch {
    throw new CliError(`the token file ${file} is not JSON; run agent-gateway login again`);
  }
  if (typeof parsed.token !== 'string' || typeof parsed.chainId !== 'number') {
    throw new CliError(`the token file ${file} has no token; run agent-gateway login again`);
  }
  return {
    token: parsed.token,
    chainId: parsed.chainId,
    wallet: typeof parsed.wallet === 'string' ? parsed.wallet : '',
    baseUrl: typeof parsed.baseUrl === 'string' ? parsed.baseUrl : '',
    expiresAt: typeof parsed.expiresAt === 'string' ? parsed.expiresAt : null,
  };
}
