/**
 * What most commands need: the base URL, a client with the saved token (re-login with
 * `AGENT_GATEWAY_PRIVATE_KEY` when it is set), and the agent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGatewayClient, type AgentClient, type GatewayClient, type LoginAccount } from '../client/client';
import { GatewayError } from '../client/errors';
import { accountFromPrivateKey } from './accounts';
import { CliError, describeGatewayError, registerSecret, UsageError, type Io } from './output';
import { readToken, saveToken, tokenFilePath } from './token-file';

/** Values of the global options, as parseArgs returns them. */
export interface GlobalValues {
  'base-url'?: string | undefined;
  'token-file'?: string | undefined;
  collection?: string | undefined;
  'token-id'?: string | undefined;
}

export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string' },
  'token-file': { type: 'string' },
  collection: { type: 'string' },
  'token-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const GLOBAL_HELP = `Global options:
  --base-url URL      the gateway (env AGENT_GATEWAY_URL; default: the testnet worker of a
                      running \`npm run dev\`, from .dev/stack.json)
  --token-file FILE   where login saves the token (env AGENT_GATEWAY_TOKEN_FILE; default
                      ~/.agent-gateway/token-<chainId>.json)
  --collection ADDR   the agent's collection address (env AGENT_COLLECTION)
  --token-id ID       the agent's token id (env AGENT_TOKEN_ID)
  -h, --help          help for the command`;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `{ testnet: { baseUrl, collection } }` from `<DEV_DIR>/stack.json` in the working directory or the checkout. */
function devStack(env: NodeJS.ProcessEnv): { baseUrl?: string; collection?: string } | undefined {
  const devDir = env.DEV_DIR || '.dev';
  for (const root of [process.cwd(), REPO_ROOT]) {
    const file = path.resolve(root, devDir, 'stack.json');
    if (!existsSync(file)) continue;
    try {
      const stack = JSON.parse(readFileSync(file, 'utf8')) as { testnet?: { baseUrl?: string; collection?: string } };
      if (stack.testnet?.baseUrl) return stack.testnet;
    } catch {
      // a half-written stack.json: ignore it
    }
  }
  return undefined;
}

export function resolveBaseUrl(values: GlobalValues, env: NodeJS.ProcessEnv): string {
  const url = values['base-url'] || env.AGENT_GATEWAY_URL || devStack(env)?.baseUrl;
  if (!url) throw new UsageError('no gateway URL: pass --base-url URL or set AGENT_GATEWAY_URL (or start `npm run dev`, whose .dev/stack.json is used)');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the gateway URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('the gateway URL must be http:// or https://');
  if (parsed.username || parsed.password) throw new UsageError('the gateway URL must not contain a user name or password');
  return url.replace(/\/+$/, '');
}

/** The chain of the deployment, from `GET /health` (200 and 503 both name it). */
export async function chainIdOf(client: GatewayClient): Promise<number> {
  try {
    const report = await client.health();
    if (typeof report.chainId !== 'number') throw new CliError(`${client.baseUrl}/health did not name a chain id: is this an agent-gateway?`);
    return report.chainId;
  } catch (err) {
    if (err instanceof GatewayError) throw new CliError(`cannot reach the gateway at ${client.baseUrl}: ${describeGatewayError(err)}`);
    throw err;
  }
}

export interface Session {
  client: GatewayClient;
  baseUrl: string;
  chainId: number;
  tokenFile: string;
}

/**
 * A client with the saved token of the deployment's chain. When AGENT_GATEWAY_PRIVATE_KEY is
 * set, a missing or expired token is replaced by a fresh login (and saved); otherwise they are
 * errors that say to run `agent-gateway login`.
 */
export async function openSession(values: GlobalValues, env: NodeJS.ProcessEnv, io: Io): Promise<Session> {
  const baseUrl = resolveBaseUrl(values, env);
  const chainId = await chainIdOf(createGatewayClient({ baseUrl, timeoutMs: 15_000 }));
  const tokenFile = tokenFilePath(values['token-file'], env, chainId);
  const saved = await readToken(tokenFile);
  if (saved) registerSecret(saved.token);
  if (saved && saved.chainId !== chainId) {
    throw new CliError(`the token in ${tokenFile} is for chain ${saved.chainId}, but ${baseUrl} serves chain ${chainId}; run agent-gateway login`);
  }
  const privateKey = env.AGENT_GATEWAY_PRIVATE_KEY;
  let login: { account: LoginAccount; chainId: number } | undefined;
  if (privateKey) {
    login = { account: await accountFromPrivateKey(privateKey), chainId };
  }
  const expired = saved?.expiresAt ? Date.parse(saved.expiresAt) <= Date.now() + 5_000 : false;
  if (!login) {
    if (!saved) throw new CliError(`not logged in: no token in ${tokenFile}; run agent-gateway login first`);
    if (expired) throw new CliError(`the token in ${tokenFile} expired at ${saved.expiresAt}; run agent-gateway login again`);
  } else if (saved && saved.wallet && saved.wallet.toLowerCase() !== login.account.address.toLowerCase()) {
    io.err(`agent-gateway: the token in ${tokenFile} belongs to ${saved.wallet}; AGENT_GATEWAY_PRIVATE_KEY is ${login.account.address}: logging in as the latter`);
  }
  const useSaved = saved && !expired && (!login || !saved.wallet || saved.wallet.toLowerCase() === login.account.address.toLowerCase());
  const client = createGatewayClient({
    baseUrl,
    token: useSaved ? saved.token : undefined,
    login,
    onToken: async (session) => {
      registerSecret(session.token);
      await saveToken(tokenFile, { token: session.token, chainId, wallet: session.walletAddress, baseUrl, expiresAt: session.expiresAt });
    },
  });
  return { client, baseUrl, chainId, tokenFile };
}

/** The agent from --collection/--token-id or AGENT_COLLECTION/AGENT_TOKEN_ID. */
export function agentOf(session: Session, values: GlobalValues, env: NodeJS.ProcessEnv): AgentClient {
  const collection = values.collection || env.AGENT_COLLECTION;
  const tokenId = values['token-id'] || env.AGENT_TOKEN_ID;
  if (!collection || !tokenId) {
    throw new UsageError('which agent? pass --collection ADDRESS and --token-id ID (or set AGENT_COLLECTION and AGENT_TOKEN_ID)');
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(collection)) throw new UsageError(`--collection must be 0x + 40 hex, got ${JSON.stringify(collection.slice(0, 60))}`);
  if (!/^(0|[1-9]\d*)$/.test(tokenId)) throw new UsageError(`--token-id must be a decimal number without sign or leading zeros, got ${JSON.stringify(tokenId.slice(0, 90))}`);
  return session.client.agent(collection, tokenId);
}

/** Turns gateway failures that end a command into CliErrors with a hint. */
export function gatewayFailure(err: unknown, what: string): never {
  if (err instanceof GatewayError) {
    const hint =
      err.status === 401
        ? '; run agent-gateway login again'
        : err.code === 'not_owner'
          ? ' (the logged-in wallet does not own this agent)'
          : err.code === 'agent_not_found'
            ? ' (check --collection and --token-id, and the deployment)'
            : '';
    throw new CliError(`${what}: ${describeGatewayError(err)}${hint}`);
  }
  throw err;
}
