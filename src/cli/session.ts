/**
 * What most commands need: the base URL, a client with the saved token (re-login with
 * `AGENT_GATEWAY_PRIVATE_KEY` when it is set), and the agent.
 */
import { createGatewayClient, type AgentClient, type GatewayClient, type LoginAccount } from '../client/client';
import { GatewayError } from '../client/errors';
import { accountFromPrivateKey } from './accounts';
import { resolveBaseUrlFrom } from './gateway-url';
import { CliError, describeGatewayError, registerSecret, UsageError, type Io } from './output';
import { retryingFetch } from './retry';
import { checkedSigner } from './sign-in-check';
import { readLogins, saveToken, tokenFilePath } from './token-file';

/** Values of the global options, as parseArgs returns them. */
export interface GlobalValues {
  'base-url'?: string | undefined;
  'token-file'?: string | undefined;
  collection?: string | undefined;
  'token-id'?: string | undefined;
  'api-key-env'?: string | undefined;
}

export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string' },
  'token-file': { type: 'string' },
  collection: { type: 'string' },
  'token-id': { type: 'string' },
  'api-key-env': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const GLOBAL_HELP = `Global options:
  --base-url URL      the gateway, https:// (http:// only to 127.0.0.1, localhost, ::1) (env
                      AGENT_GATEWAY_URL; default: the testnet worker of a running \`npm run dev\`,
                      from its stack file $DEV_DIR/stack.json (DEV_DIR absolute; run from the
                      repository itself, DEV_DIR defaults to its .dev))
  --token-file FILE   where login saves the token, one entry per gateway URL (env
                      AGENT_GATEWAY_TOKEN_FILE; default ~/.agent-gateway/token-<chainId>.json)
  --collection ADDR   the agent's collection address (env AGENT_COLLECTION)
  --token-id ID       the agent's token id (env AGENT_TOKEN_ID)
  --api-key-env NAME  read an agent key (agk_...) from the environment variable NAME and use it
                      instead of a login, for contexts, hydrate and messages (default: the env
                      AGENT_GATEWAY_API_KEY when set); \`keys\` commands always use the login
  -h, --help          help for the command`;

/** The normalized gateway URL (see gateway-url.ts for where it may come from). */
export function resolveBaseUrl(values: GlobalValues, env: NodeJS.ProcessEnv): string {
  return resolveBaseUrlFrom(values['base-url'], env).baseUrl;
}

/** The chain of the deployment, from `GET /health` (200 and 503 both name it). */
export async function chainIdOf(client: GatewayClient): Promise<number> {
  try {
    const report = await client.health();
    if (typeof report.chainId !== 'number')
      throw new CliError(`${client.baseUrl}/health did not name a chain id: is this an agent-gateway?`);
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
 * A client with the token saved for this very gateway URL (never one issued by another URL), its
 * reads and re-logins retried on 429/502/503/504. When AGENT_GATEWAY_PRIVATE_KEY is
 * set, a missing or expired token is replaced by a fresh login (and saved); otherwise they are
 * errors that say to run `agent-gateway login`.
 */
export async function openSession(
  values: GlobalValues,
  env: NodeJS.ProcessEnv,
  io: Io,
  options: { agentKey: boolean } = { agentKey: true },
): Promise<Session> {
  const baseUrl = resolveBaseUrl(values, env);
  const apiKey = options.agentKey ? agentKeyOf(values, env) : noAgentKey(values);
  const chainId = await chainIdOf(createGatewayClient({ baseUrl, timeoutMs: 15_000 }));
  const tokenFile = tokenFilePath(values['token-file'], env, chainId);
  if (apiKey) return { client: createGatewayClient({ baseUrl, apiKey, fetch: retrying(io, baseUrl) }), baseUrl, chainId, tokenFile };
  const logins = await readLogins(tokenFile);
  for (const login of logins.values()) registerSecret(login.token);
  // Only the token issued by this very gateway: a token is never sent to another URL.
  const saved = logins.get(baseUrl);
  if (saved && saved.chainId !== chainId) {
    throw new CliError(
      `the token in ${tokenFile} is for chain ${saved.chainId}, but ${baseUrl} serves chain ${chainId}; run agent-gateway login`,
    );
  }
  const privateKey = env.AGENT_GATEWAY_PRIVATE_KEY;
  let login: { account: LoginAccount; chainId: number } | undefined;
  if (privateKey) {
    login = { account: checkedSigner(await accountFromPrivateKey(privateKey), { baseUrl, chainId }), chainId };
  }
  const expired = saved?.expiresAt ? Date.parse(saved.expiresAt) <= Date.now() + 5_000 : false;
  if (!login) {
    if (!saved) {
      const others =
        logins.size > 0
          ? ` (it holds logins for ${[...logins.keys()].join(', ')} only; a token is used only with the gateway that issued it)`
          : '';
      throw new CliError(
        `not logged in to ${baseUrl}: no token for it in ${tokenFile}${others}; run agent-gateway login --base-url ${baseUrl} first`,
      );
    }
    if (expired) throw new CliError(`the token in ${tokenFile} expired at ${saved.expiresAt}; run agent-gateway login again`);
  } else if (saved?.wallet && saved.wallet.toLowerCase() !== login.account.address.toLowerCase()) {
    io.err(
      `agent-gateway: the token in ${tokenFile} belongs to ${saved.wallet}; AGENT_GATEWAY_PRIVATE_KEY is ${login.account.address}: logging in as the latter`,
    );
  }
  const useSaved = saved && !expired && (!login || !saved.wallet || saved.wallet.toLowerCase() === login.account.address.toLowerCase());
  const client = createGatewayClient({
    baseUrl,
    token: useSaved ? saved.token : undefined,
    login,
    fetch: retrying(io, baseUrl),
    onToken: async (session) => {
      registerSecret(session.token);
      await saveToken(tokenFile, { token: session.token, chainId, wallet: session.walletAddress, baseUrl, expiresAt: session.expiresAt });
    },
  });
  return { client, baseUrl, chainId, tokenFile };
}

/** The gateway client's `fetch` of a command: reads retried, each retry told on stderr. */
export function retrying(io: Io, baseUrl: string) {
  return retryingFetch({
    onRetry: (what, attempt, delayMs) =>
      io.err(`agent-gateway: ${what} from ${baseUrl}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
  });
}

const AGENT_KEY = /^agk_[a-z2-7]{32}$/;

/**
 * The agent key of --api-key-env NAME (that variable must hold one), else of
 * AGENT_GATEWAY_API_KEY when set; registered as a secret, never printed.
 */
function agentKeyOf(values: GlobalValues, env: NodeJS.ProcessEnv): string | undefined {
  const name = values['api-key-env'] ?? (env.AGENT_GATEWAY_API_KEY ? 'AGENT_GATEWAY_API_KEY' : undefined);
  if (name === undefined) return undefined;
  const key = env[name]?.trim();
  registerSecret(key);
  if (!key) throw new UsageError(`--api-key-env ${name}: the environment variable ${name} is not set`);
  if (!AGENT_KEY.test(key)) throw new UsageError(`${name} does not hold an agent key (agk_ followed by 32 characters of a-z and 2-7)`);
  return key;
}

/** Commands that need the owner's wallet (managing keys) refuse --api-key-env and ignore AGENT_GATEWAY_API_KEY. */
function noAgentKey(values: GlobalValues): undefined {
  if (values['api-key-env'] !== undefined) throw new UsageError("--api-key-env: this command needs the owner's login, not an agent key");
  return undefined;
}

/** The agent from --collection/--token-id or AGENT_COLLECTION/AGENT_TOKEN_ID. */
/** `openSession`, then the agent the flags or the environment name: what most commands start with. */
export async function openAgent(
  values: GlobalValues,
  env: NodeJS.ProcessEnv,
  io: Io,
  options?: { agentKey: boolean },
): Promise<{ session: Session; agent: AgentClient }> {
  const session = await openSession(values, env, io, options);
  return { session, agent: agentOf(session, values, env) };
}

export function agentOf(session: Pick<Session, 'client'>, values: GlobalValues, env: NodeJS.ProcessEnv): AgentClient {
  const collection = values.collection || env.AGENT_COLLECTION;
  const tokenId = values['token-id'] || env.AGENT_TOKEN_ID;
  if (!collection || !tokenId) {
    throw new UsageError('which agent? pass --collection ADDRESS and --token-id ID (or set AGENT_COLLECTION and AGENT_TOKEN_ID)');
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(collection))
    throw new UsageError(`--collection must be 0x + 40 hex, got ${JSON.stringify(collection.slice(0, 60))}`);
  if (!/^(0|[1-9]\d*)$/.test(tokenId))
    throw new UsageError(`--token-id must be a decimal number without sign or leading zeros, got ${JSON.stringify(tokenId.slice(0, 90))}`);
  return session.client.agent(collection, tokenId);
}

/** Turns gateway failures that end a command into CliErrors with a hint. */
export function gatewayFailure(err: unknown, what: string): never {
  if (err instanceof GatewayError) {
    const hint = err.code.startsWith('key_')
      ? " (the agent key cannot do this: ask the agent's owner for a key with the right scope, or a new one)"
      : err.status === 401
        ? '; run agent-gateway login again'
        : err.code === 'not_owner'
          ? " (the logged-in wallet does not own this agent, and the owner's access setting does not let its delegates or renters do this)"
          : err.code === 'agent_not_found' || err.code === 'collection_not_found'
            ? ' (check --collection and --token-id, and the deployment)'
            : '';
    throw new CliError(`${what}: ${describeGatewayError(err)}${hint}`);
  }
  throw err;
}
