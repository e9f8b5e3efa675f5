/** `agent-gateway login`: wallet login (private key or V3 keystore), token saved with mode 0600. */
import { createGatewayClient, type LoginAccount } from '../client/client';
import { GatewayError } from '../client/errors';
import { accountFromKeystore, accountFromPrivateKey } from './accounts';
import { stringValue, type Command } from './command';
import { CliError, describeGatewayError, registerSecret, UsageError } from './output';
import { chainIdOf, resolveBaseUrl, type GlobalValues } from './session';
import { RETRY_POLICY, withRetry } from './retry';
import { checkedSigner } from './sign-in-check';
import { saveToken, tokenFilePath } from './token-file';

export const loginCommand: Command = {
  path: ['login'],
  usage: 'agent-gateway login [--keystore FILE] [--print-token]',
  help: `Signs the gateway's sign-in message (EIP-4361) with your wallet and saves the access token
(JWT) to the token file, mode 0600. The chain id comes from /health of the gateway.

The key comes from:
  --keystore FILE     an Ethereum V3 keystore (scrypt or pbkdf2, aes-128-ctr); the password from
                      AGENT_GATEWAY_KEYSTORE_PASSWORD, or prompted (not echoed) on a terminal
  AGENT_GATEWAY_PRIVATE_KEY   environment variable, 0x + 64 hex (used when --keystore is absent)

Options:
  --print-token       also print the token on stdout (alone, for scripts: the status line then
                      goes to stderr). Without it the token is never printed.

The private key never leaves this process; only the signature is sent. The sign-in message is
read before it is signed: it must name this gateway (domain and URI of --base-url), the wallet,
the chain of /health, and be fresh; otherwise nothing is signed and the exit code is 3. The token
is saved for this gateway URL only and never sent to another. A retry starts over with a fresh
sign-in message.

${RETRY_POLICY}`,
  options: {
    keystore: { type: 'string' },
    'print-token': { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const globals = values as GlobalValues;
    const baseUrl = resolveBaseUrl(globals, env);
    const keystore = stringValue(values, 'keystore');
    if (!keystore && !env.AGENT_GATEWAY_PRIVATE_KEY)
      throw new UsageError('no key to log in with: set AGENT_GATEWAY_PRIVATE_KEY or pass --keystore FILE');
    const chainId = await chainIdOf(createGatewayClient({ baseUrl, timeoutMs: 15_000 }));
    const wallet: LoginAccount = keystore
      ? await accountFromKeystore(keystore, env)
      : await accountFromPrivateKey(env.AGENT_GATEWAY_PRIVATE_KEY!);
    const account = checkedSigner(wallet, { baseUrl, chainId });
    const client = createGatewayClient({ baseUrl, login: { account, chainId }, timeoutMs: 30_000 });
    let session: Awaited<ReturnType<typeof client.login>>;
    try {
      // A retry starts over with a fresh init (a new message and nonce), so it is always safe.
      session = await withRetry(() => client.login(), {
        onRetry: (err, attempt, delayMs) =>
          io.err(`agent-gateway login: ${describeGatewayError(err)}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
      });
    } catch (err) {
      if (err instanceof GatewayError) throw new CliError(`login failed: ${describeGatewayError(err)}`);
      throw err;
    }
    registerSecret(session.token);
    const file = tokenFilePath(globals['token-file'], env, chainId);
    await saveToken(file, { token: session.token, chainId, wallet: session.walletAddress, baseUrl, expiresAt: session.expiresAt });
    const status = `logged in as ${session.walletAddress} on chain ${chainId}, token saved to ${file}${session.expiresAt ? ` (expires ${session.expiresAt})` : ''}`;
    if (values['print-token'] === true) {
      io.err(status);
      io.rawOut(`${session.token}\n`);
    } else {
      io.out(status);
    }
    return 0;
  },
};
