/**
 * Tool servers that need OAuth, on the command line: `tools add --oauth` and `tools authorize ID`
 * print where the owner authorizes the gateway at the tool server, then wait (polling the
 * connection list) until the connection is `ready`, the wait runs out, or Ctrl-C.
 */
import type { AgentClient } from '../client/client';
import { isGatewayError } from '../client/errors';
import type { McpConnection, ToolServerAuthInput } from '../client/types';
import { stringValue, type Command, type OptionValues } from './command';
import { CliError, registerSecret, UsageError, type Io } from './output';
import { agentOf, gatewayFailure, openSession, type GlobalValues } from './session';

/** Default and ceiling of `--wait-seconds`. */
export const DEFAULT_WAIT_SECONDS = 300;
const MAX_WAIT_SECONDS = 3_600;
const POLL_MS = 2_000;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

/** The OAuth options of `tools add` and `tools authorize`, for their help. */
export const OAUTH_OPTIONS_HELP = `  --wait-seconds N      how long to wait for the authorization (0..${MAX_WAIT_SECONDS}, default
                        ${DEFAULT_WAIT_SECONDS}; 0: print the URL and return at once)`;

/** `--oauth` with `--scope` (repeated or comma-separated), `--client-id`, `--client-secret-env VAR`. */
export function oauthAuthFromOptions(values: OptionValues, env: NodeJS.ProcessEnv): ToolServerAuthInput {
  const given = values.scope;
  const raw = Array.isArray(given) ? given.map(String) : typeof given === 'string' ? [given] : [];
  const scopes = raw.flatMap((s) => s.split(',').map((x) => x.trim())).filter((s) => s !== '');
  for (const scope of scopes) {
    if (!SCOPE.test(scope))
      throw new UsageError(`--scope ${JSON.stringify(scope)}: a scope is 1..200 printable characters, no space, quote or backslash`);
  }
  if (scopes.length > 50) throw new UsageError('--scope: at most 50 scopes');
  const clientId = stringValue(values, 'client-id');
  const secretVar = stringValue(values, 'client-secret-env');
  if (secretVar !== undefined && clientId === undefined) throw new UsageError('--client-secret-env needs --client-id');
  let clientSecret: string | undefined;
  if (secretVar !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretVar)) throw new UsageError('--client-secret-env must name an environment variable');
    clientSecret = env[secretVar]?.trim() ?? '';
    if (clientSecret === '') throw new UsageError(`--client-secret-env: the environment variable ${secretVar} is not set or empty`);
    registerSecret(clientSecret);
  }
  return {
    type: 'oauth',
    ...(scopes.length > 0 ? { scopes } : {}),
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
  };
}

/** `--wait-seconds N`: 0..3600, default 300. */
export function waitSeconds(values: OptionValues): number {
  const raw = stringValue(values, 'wait-seconds');
  if (raw === undefined) return DEFAULT_WAIT_SECONDS;
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_WAIT_SECONDS)
    throw new UsageError(`--wait-seconds must be a whole number from 0 to ${MAX_WAIT_SECONDS}`);
  return Number(raw);
}

/** The authorize URL for people: on a terminal, a line that says what to do with it. */
export function showAuthorizeUrl(url: string, stream: 'out' | 'err', io: Io, command: string): void {
  const tty = Boolean((stream === 'out' ? io.stdout : io.stderr).isTTY);
  const host = new URL(url).host;
  if (tty) io.err(`${command}: Open this URL in a browser to authorize the gateway at ${host} (single use, valid 10 minutes):`);
  else if (stream === 'err') io.err(`${command}: authorize the gateway at ${host} (open in a browser; single use, valid 10 minutes):`);
  if (stream === 'out') io.out(url);
  else io.err(url);
}

/** Why a wait ended without `ready`. */
export type WaitEnd = { ready: true; connection: McpConnection } | { ready: false; reason: 'timeout' | 'interrupted' };

/**
 * Polls `GET …/mcp/connections` until connection `id` is `ready`, `seconds` pass, or Ctrl-C, with
 * a line on stderr that shows the wait moving. A transient failure of one poll is retried.
 */
export async function waitUntilAuthorized(agent: AgentClient, id: string, seconds: number, io: Io, command: string): Promise<WaitEnd> {
  const tty = Boolean(io.stderr.isTTY);
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once('SIGINT', onSigint);
  let lastLine = 0;
  const show = (final = false) => {
    const waited = Math.round((Date.now() - started) / 1000);
    const text = `${command}: waiting for the authorization in the browser… ${waited} s of ${seconds} s (Ctrl-C to stop)`;
    if (tty) io.stderr.write(final ? '\r\x1b[K' : `\r${text}\x1b[K`);
    else if (!final && Date.now() - lastLine >= 15_000) {
      lastLine = Date.now();
      io.err(text);
    }
  };
  try {
    while (!stop.signal.aborted) {
      const connection = await pollOnce(agent, id, stop.signal);
      if (connection?.status === 'ready') return { ready: true, connection };
      if (Date.now() >= deadline) return { ready: false, reason: 'timeout' };
      show();
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), stop.signal);
    }
    return { ready: false, reason: 'interrupted' };
  } finally {
    process.off('SIGINT', onSigint);
    show(true);
  }
}

/** One poll: the connection, or undefined after a transient failure (or an abort). */
async function pollOnce(agent: AgentClient, id: string, signal: AbortSignal): Promise<McpConnection | undefined> {
  try {
    const { connections } = await agent.listMcpConnections({ signal });
    const connection = connections.find((c) => c.id === id);
    if (!connection) throw new CliError(`connection ${id} is gone (removed while waiting for its authorization)`);
    return connection;
  } catch (err) {
    if (signal.aborted || (isGatewayError(err) && (err.transient || err.code === 'aborted'))) return undefined;
    return gatewayFailure(err, 'checking the connection');
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Shows the authorize URL, waits, and says how it ended; the exit code. */
export async function authorizeAndWait(
  agent: AgentClient,
  id: string,
  authorizeUrl: string,
  values: OptionValues,
  io: Io,
  how: { command: string; urlOn: 'out' | 'err' },
): Promise<number> {
  const seconds = waitSeconds(values);
  showAuthorizeUrl(authorizeUrl, how.urlOn, io, how.command);
  if (seconds === 0) {
    io.err(`${how.command}: not waiting (--wait-seconds 0); agent-gateway tools list shows the connection's status`);
    return 0;
  }
  const end = await waitUntilAuthorized(agent, id, seconds, io, how.command);
  if (end.ready) {
    const n = end.connection.tools.length;
    io.err(`${how.command}: authorized: connection ${id} is ready, ${n} tool${n === 1 ? '' : 's'}`);
    return 0;
  }
  const again = `agent-gateway tools authorize ${id}`;
  if (end.reason === 'interrupted') {
    io.err(
      `${how.command}: stopped waiting (Ctrl-C). The connection ${id} is registered and waits for its authorization: run ${again} for a fresh URL`,
    );
    return 130;
  }
  throw new CliError(
    `not authorized within ${seconds} s: the connection ${id} is registered but still needs its authorization. Run ${again} for a fresh URL (each one is single use and valid 10 minutes), open it in a browser and approve there`,
  );
}

export const toolsAuthorizeCommand: Command = {
  path: ['tools', 'authorize'],
  usage: 'agent-gateway tools authorize ID [--wait-seconds N]',
  help: `For a tool server that needs OAuth (added with tools add --oauth): asks the gateway for a
fresh URL where you authorize it at the tool server's authorization server, prints it on stdout,
then waits until the connection is ready (the gateway got its tokens) and prints its tools count.
Use it when tools list shows "authorization_required": the first time, when the link ran out,
after a refused refresh or a transfer of the agent, or to authorize again.

Options:
${OAUTH_OPTIONS_HELP}

Exit code 1 when the wait runs out (run the command again for a fresh URL), 130 after Ctrl-C.
Needs a login and the agent (--collection, --token-id, or AGENT_COLLECTION, AGENT_TOKEN_ID).`,
  options: { 'wait-seconds': { type: 'string' } },
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const id = args[0] as string;
    waitSeconds(values);
    const session = await openSession(values as GlobalValues, env, io);
    const agent = agentOf(session, values as GlobalValues, env);
    const { authorizeUrl } = await agent.authorizeMcpConnection(id).catch((err: unknown) => gatewayFailure(err, `authorizing ${id}`));
    return authorizeAndWait(agent, id, authorizeUrl, values, io, { command: 'tools authorize', urlOn: 'out' });
  },
};
