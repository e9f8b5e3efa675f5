/**
 * `agent-gateway pay ask`: a reply paid with x402 from the CLI's wallet (the key `login` uses),
 * no login or token needed. The 402's terms are read before anything is signed: only an `exact`
 * payment in the deployment's USDC, at most `--max-usd`; otherwise nothing is signed.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { createGatewayClient } from '../client/client';
import { GatewayError } from '../client/errors';
import type { ReplyAnswer } from '../client/types';
import { isChainId, USDC } from '../chains';
import { unitsToUsd, usdToUnits } from '../encoding/usd-units';
import { accountFromKeystore, accountFromPrivateKey } from './accounts';
import { type Command, type OptionValues, stringValue } from './command';
import { CliError, checksummed, describeGatewayError, EXIT_REFUSED, UsageError } from './output';
import { agentOf, chainIdOf, type GlobalValues, resolveBaseUrl } from './session';

/** What `--max-usd` allows when it is not given: one US dollar. */
export const DEFAULT_MAX_USD = '1';
/** How long a paid reply may take, the two requests of x402 together (ms). */
const PAID_TIMEOUT_MS = 180_000;

/** `--max-usd` as USDC units: a decimal of dollars above 0 with at most 6 places (default 1). */
export function maxUnitsOf(values: OptionValues): number {
  const raw = stringValue(values, 'max-usd') ?? DEFAULT_MAX_USD;
  const units = usdToUnits(raw.trim());
  if (units === null || units <= 0)
    throw new UsageError(
      `--max-usd takes US dollars above 0 with at most 6 decimal places, such as 0.05; got ${JSON.stringify(raw.slice(0, 40))}`,
    );
  return units;
}

/** The message to ask: `--message`, not blank. */
export function messageOf(values: OptionValues): string {
  const message = stringValue(values, 'message');
  if (message === undefined || message.trim() === '') throw new UsageError('--message is required (what to ask the agent)');
  return message;
}

/** What a 402 asks for, as the CLI checked it. */
export interface AskedTerms {
  units: bigint;
  payTo: string;
}

/**
 * Why the terms of a 402 are not paid (null: pay them): another scheme, network or asset than
 * the deployment's USDC, an amount that is not a whole count of units, or more than `maxUnits`.
 */
export function refusalOf(
  requirements: { scheme: string; network: string; asset: string; amount: string },
  chainId: number,
  maxUnits: number,
): string | null {
  if (!isChainId(chainId)) return `chain ${chainId} is not one this CLI pays on`;
  const usdc = USDC[chainId];
  if (requirements.scheme !== 'exact') return `the gateway asks for an x402 scheme this CLI does not pay with (${requirements.scheme})`;
  if (requirements.network !== `eip155:${chainId}`)
    return `the gateway asks for a payment on ${requirements.network}, not on its chain eip155:${chainId}`;
  if (requirements.asset.toLowerCase() !== usdc.address.toLowerCase())
    return `the gateway asks for a payment in ${requirements.asset}, not in USDC (${usdc.address})`;
  if (!/^\d{1,30}$/.test(requirements.amount))
    return `the gateway asks for an amount that is not a whole count of USDC units (${requirements.amount.slice(0, 40)})`;
  const units = BigInt(requirements.amount);
  if (units > BigInt(maxUnits))
    return `the agent asks ${unitsToUsd(units)} USD per reply, more than --max-usd ${unitsToUsd(maxUnits)}: nothing was paid`;
  return null;
}

/** A fetch that pays the gateway's 402 from `account`, and what it was asked or why it refused. */
async function payingFetch(account: PrivateKeyAccount, chainId: number, maxUnits: number) {
  const [{ x402Client }, { ExactEvmScheme }, { toClientEvmSigner }, { wrapFetchWithPayment }] = await Promise.all([
    import('@x402/core/client'),
    import('@x402/evm/exact/client'),
    import('@x402/evm'),
    import('@x402/fetch'),
  ]);
  const seen: { asked?: AskedTerms; refusal?: string } = {};
  const client = new x402Client()
    .register(`eip155:${chainId}`, new ExactEvmScheme(toClientEvmSigner(account)))
    // The CLI's own rules below replace the library's default allowlist and its dollar cap.
    .setSpendControls(false)
    .onBeforePaymentCreation(async ({ selectedRequirements }) => {
      const refusal = refusalOf(selectedRequirements, chainId, maxUnits);
      if (refusal) {
        seen.refusal = refusal;
        return { abort: true, reason: refusal };
      }
      seen.asked = { units: BigInt(selectedRequirements.amount), payTo: selectedRequirements.payTo };
      return undefined;
    });
  const paying = wrapFetchWithPayment(globalThis.fetch, client);
  return { fetch: (input: string, init: RequestInit) => paying(input, init), seen };
}

/** A failed paid ask as one line, with what to do about the usual ones. */
function payFailure(err: unknown): never {
  if (!(err instanceof GatewayError)) throw err;
  const hint =
    err.code === 'pricing_not_set'
      ? " (the agent's owner sets no price: it takes no paid replies)"
      : err.code === 'agent_not_found'
        ? ' (check --collection and --token-id, and the deployment)'
        : err.code === 'payment_invalid'
          ? ' (nothing was charged; does the wallet hold enough USDC on this chain?)'
          : '';
  throw new CliError(`paying for a reply: ${describeGatewayError(err)}${hint}`);
}

export const payAskCommand: Command = {
  path: ['pay', 'ask'],
  usage: 'agent-gateway pay ask --message TEXT [--max-usd USD] [--keystore FILE] [--json]',
  help: `Asks the agent and pays for its reply with x402 (POST …/paid/ask): the gateway answers 402
with its terms (the owner's price in USDC, paid to whoever owns the agent now), the CLI signs
that one USDC transfer (EIP-3009) with your wallet and asks again; the gateway's facilitator
settles it once the reply is ready. A reply that fails is not charged. No login is needed: the
wallet that pays is who asks, in a conversation of its own with the agent.

Prints the reply's text on stdout and "paid <amount> USDC to <owner> in <transaction>" on stderr.

The key comes from (as for login):
  --keystore FILE     an Ethereum V3 keystore; the password from AGENT_GATEWAY_KEYSTORE_PASSWORD,
                      or prompted (not echoed) on a terminal
  AGENT_GATEWAY_PRIVATE_KEY   environment variable, 0x + 64 hex (used when --keystore is absent)

Options:
  --message TEXT      what to ask (required)
  --max-usd USD       the most this reply may cost, in US dollars (default ${DEFAULT_MAX_USD}). A higher
                      price is refused before anything is signed: exit code ${EXIT_REFUSED}, nothing paid
  --json              the answer as JSON (reply, steps, usage, finishReason) with "transaction"

Only an \`exact\` payment in the USDC of the gateway's chain (from /health) is signed. Not
retried: a failure says whether anything was charged (402 payment_invalid, payment_replayed and
the reply's own errors are not charged). 404 pricing_not_set: the owner sets no price.

Needs the agent (--collection, --token-id) and the gateway (--base-url, AGENT_GATEWAY_URL or the dev stack).`,
  options: {
    message: { type: 'string' },
    'max-usd': { type: 'string' },
    keystore: { type: 'string' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const globals = values as GlobalValues;
    const message = messageOf(values);
    const maxUnits = maxUnitsOf(values);
    const baseUrl = resolveBaseUrl(globals, env);
    const keystore = stringValue(values, 'keystore');
    if (!keystore && !env.AGENT_GATEWAY_PRIVATE_KEY)
      throw new UsageError('no wallet to pay with: set AGENT_GATEWAY_PRIVATE_KEY or pass --keystore FILE');
    // The agent's name is checked before any request.
    agentOf({ client: createGatewayClient({ baseUrl }) }, globals, env);
    const chainId = await chainIdOf(createGatewayClient({ baseUrl, timeoutMs: 15_000 }));
    if (!isChainId(chainId)) throw new CliError(`${baseUrl} serves chain ${chainId}, on which this CLI knows no USDC`);
    const account = keystore ? await accountFromKeystore(keystore, env) : await accountFromPrivateKey(env.AGENT_GATEWAY_PRIVATE_KEY!);
    const paying = await payingFetch(account, chainId, maxUnits);
    const agent = agentOf({ client: createGatewayClient({ baseUrl, fetch: paying.fetch, timeoutMs: PAID_TIMEOUT_MS }) }, globals, env);
    let answer: ReplyAnswer & { transaction: string | null };
    try {
      answer = await agent.paidAsk({ message });
    } catch (err) {
      if (paying.seen.refusal) throw new CliError(paying.seen.refusal, EXIT_REFUSED);
      payFailure(err);
    }
    const asked = paying.seen.asked;
    const paid = asked
      ? `paid ${unitsToUsd(asked.units)} USDC to ${checksummed(asked.payTo)} in ${answer.transaction ?? '(no transaction reported)'}`
      : 'nothing was paid (the gateway asked for no payment)';
    if (values.json === true) io.out(JSON.stringify(answer, null, 2));
    else io.out(answer.reply?.message ?? '(no reply text)');
    io.err(paid);
    return 0;
  },
};
