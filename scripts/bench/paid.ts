/**
 * `npm run bench:paid [-- --rounds N] [--write]`: what paying with x402 adds to an agent's reply,
 * against the owner's own reply in the same rounds, on the running local stack
 * (`DEV_WRANGLER=0 DEV_RATE_LIMITS=0 npm run dev`, with its stand-in model and its x402
 * facilitator; the latency switches apply to the facilitator's chain calls too).
 *
 * It mints an agent to a dev account, saves LLM settings on the stand-in with a price of 0.01 USD,
 * gives every round a fresh payer holding stand-in USDC (so each paid reply is in a new context
 * `paid/{payer}`, made by that reply, as each owner's reply is in a fresh context, made beforehand), then runs `--rounds` (30) rounds after 5 warm-up
 * rounds. Each round, the two replies in alternating order:
 * - the owner's non-streamed reply (`POST …/context/{key}/reply`) on a fresh context;
 * - a paid reply, `paidAsk` through `@x402/fetch` (402, signing, the paid request: verify, reply, settle);
 * then its parts, measured alone: the unpaid 402 round trip, signing the authorization in the
 * client, the paid request with a signature made beforehand, and the facilitator's `/verify` and
 * `/settle` called directly with another freshly signed payment (x402's HTTPFacilitatorClient, as
 * the gateway calls it). Prints medians, p90s and p99s; never asserts on them. `--write` replaces
 * the section of BENCHMARKS.md.
 */
import os from 'node:os';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { type ChainId, isChainId, USDC } from '../../src/chains';
import { createGatewayClient } from '../../src/client';
import { mintAgent } from '../lib/contracts';
import { fundUsdc } from '../lib/contracts-usdc';
import {
  BenchError,
  booleanFlag,
  describeLoad,
  describeMachine,
  markdownTable,
  median,
  ms,
  now,
  numberFlag,
  parseFlags,
  percentile,
  ratio,
  readStack,
  rejectUnknownFlags,
  runBench,
  runDate,
  stackRun,
  writeBenchmarkSection,
} from './lib';
import { failureOf, loggedInClient, newWallet, rpc, stackLatency, type Wallet } from './lib/client';

const WARM_UP = 5;
/** One section per kind of run: on loopback, and under the stack's latency switches. */
const HEADING = '## Paid replies (x402): what paying adds';
const PRICE_USD = '0.01';
/** Each payer's stand-in USDC: three payments of 0.01 a round, with room to spare. */
const PAYER_UNITS = 1_000_000n;

const log = (line: string) => console.error(`bench:paid: ${line}`);

/** Fresh payers (no gas needed: the facilitator pays it), each given stand-in USDC by a fresh funder (the stand-in's open mint). */
async function fundedPayers(rpcUrl: string, chainId: ChainId, count: number): Promise<Wallet[]> {
  const funder = newWallet();
  await rpc(rpcUrl, 'anvil_setBalance', [funder.address, '0x56BC75E2D63100000']);
  const payers = Array.from({ length: count }, () => newWallet());
  await fundUsdc(
    rpcUrl,
    chainId,
    payers.map((p) => p.address),
    PAYER_UNITS,
    funder.privateKey,
  );
  return payers;
}

const post = (url: string, message: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message }) });

/** Times `run`; its failure names the step (a GatewayError's status and code, never a body). */
async function time<T>(what: string, run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = now();
  try {
    const value = await run();
    return { ms: now() - t0, value };
  } catch (err) {
    throw new BenchError(`${what} failed: ${failureOf(err)}`);
  }
}

interface Samples {
  owner: number[];
  paid: number[];
  paidLeg: number[];
  unpaid: number[];
  sign: number[];
  verify: number[];
  settle: number[];
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['rounds', 'write']);
  const rounds = numberFlag(flags, 'rounds', 30);
  const stack = await readStack();
  const extra = stack as { llm?: { baseUrl: string; model: string } | null; x402?: { facilitatorUrl: string } | null };
  if (!extra.llm) throw new BenchError('stack.json names no stand-in model: start the stack with DEV_LLM=1 (the default)');
  if (!extra.x402?.facilitatorUrl) throw new BenchError('stack.json names no x402 facilitator: start the stack of this tree (npm run dev)');
  const { llm } = extra;
  const { testnet } = stack;
  if (!isChainId(testnet.chainId)) throw new BenchError(`chain ${testnet.chainId} has no USDC`);
  const chainId = testnet.chainId;
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? Number.NaN;
  log(`stack: testnet ${testnet.baseUrl}, facilitator ${extra.x402.facilitatorUrl}; ${describeMachine()}; load ${loadAtStart.toFixed(2)}`);

  const devAccount = stack.accounts[1];
  if (!devAccount) throw new BenchError('stack.json lists no second dev account');
  const owner = Object.assign(privateKeyToAccount(devAccount.privateKey), { privateKey: devAccount.privateKey });
  const minter = newWallet();
  await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']);
  const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
  await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, owner.address, tokenId);
  const client = await loggedInClient(testnet, owner);
  const agent = client.agent(testnet.collection, tokenId);
  await agent.saveLlmSettings({
    provider: 'openai-compatible',
    model: llm.model,
    temperature: 0,
    maxTokens: 512,
    baseUrl: llm.baseUrl,
    pricing: { askUsd: PRICE_USD },
  });
  const total = WARM_UP + rounds;
  const keys = Array.from({ length: total }, (_, i) => `bench-paid-${i}`);
  for (let i = 0; i < keys.length; i += 100) await agent.createContexts(keys.slice(i, i + 100));
  const payers = await fundedPayers(testnet.rpcUrl, chainId, total);
  const paidUrl = `${testnet.baseUrl}${agent.path}/paid/ask`;
  const facilitator = new HTTPFacilitatorClient({ url: extra.x402.facilitatorUrl });
  log(`agent ${tokenId} priced at ${PRICE_USD} USD; ${total} payers funded; running ${WARM_UP} warm-up and ${rounds} measured rounds`);

  const s: Samples = { owner: [], paid: [], paidLeg: [], unpaid: [], sign: [], verify: [], settle: [] };
  let unexpected = 0;
  for (let i = 0; i < total; i++) {
    const message = `hello from round ${i}`;
    const payer = privateKeyToAccount(payers[i]!.privateKey);
    // The library pays only in tokens it knows unless told: the chain's USDC is allowed by address.
    const x402 = new x402Client()
      .register('eip155:*', new ExactEvmScheme(payer))
      .setSpendControls({ allowedAssets: [{ network: `eip155:${chainId}`, asset: USDC[chainId].address }] });
    const paying = createGatewayClient({ baseUrl: testnet.baseUrl, fetch: wrapFetchWithPayment(fetch, x402) });
    const ownerReply = () => time("the owner's reply", () => agent.replyToContext(keys[i]!, { message }));
    const paidReply = () => time('the paid reply', () => paying.agent(testnet.collection, tokenId).paidAsk({ message }));
    // Alternating order: neither reply always runs first (warm caches, the chain's latest block).
    let o: Awaited<ReturnType<typeof ownerReply>>;
    let p: Awaited<ReturnType<typeof paidReply>>;
    if (i % 2 === 0) {
      o = await ownerReply();
      p = await paidReply();
    } else {
      p = await paidReply();
      o = await ownerReply();
    }
    if (p.value.transaction === null || p.value.reply?.message !== o.value.reply?.message) unexpected++;

    // The parts alone, in the same round and from the same payer.
    const unpaid = await time('the unpaid request', async () => {
      const res = await post(paidUrl, message);
      await res.arrayBuffer();
      if (res.status !== 402) throw new BenchError(`the unpaid request answered ${res.status}`);
      return res;
    });
    const http402 = new x402HTTPClient(x402);
    const required = http402.getPaymentRequiredResponse((name) => unpaid.value.headers.get(name));
    const signed = await time('signing', () => http402.createPaymentPayload(required));
    const leg = await time('the paid request', async () => {
      const res = await post(paidUrl, message, http402.encodePaymentSignatureHeader(signed.value));
      await res.arrayBuffer();
      if (res.status !== 200) throw new BenchError(`the paid request answered ${res.status}`);
    });
    const fresh: PaymentPayload = await http402.createPaymentPayload(required);
    const accepted: PaymentRequirements = fresh.accepted;
    const verify = await time('/verify', () => facilitator.verify(fresh, accepted));
    const settle = await time('/settle', () => facilitator.settle(fresh, accepted));
    if (!verify.value.isValid || !settle.value.success) unexpected++;
    if (i < WARM_UP) continue;
    s.owner.push(o.ms);
    s.paid.push(p.ms);
    s.paidLeg.push(leg.ms);
    s.unpaid.push(unpaid.ms);
    s.sign.push(signed.ms);
    s.verify.push(verify.ms);
    s.settle.push(settle.ms);
  }
  const loadAtEnd = os.loadavg()[0] ?? Number.NaN;

  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { median: median(sorted), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
  };
  const ownerMedian = stats(s.owner).median;
  const paidMedian = stats(s.paid).median;
  const added = paidMedian - ownerMedian;
  const share = (value: number) => (added > 0 ? `${Math.round((100 * value) / added)}%` : 'n/a');
  // Whole requests: how much longer than the owner's reply; parts: their share of what paying adds.
  const row = (what: string, xs: number[], whole: boolean) => {
    const x = stats(xs);
    return [
      what,
      ms(x.median),
      ms(x.p90),
      ms(x.p99),
      ratio(x.median, ownerMedian),
      whole ? ms(x.median - ownerMedian) : '',
      whole ? '' : share(x.median),
    ];
  };
  const parts = [s.unpaid, s.sign, s.verify, s.settle].reduce((sum, xs) => sum + stats(xs).median, 0);
  const table = markdownTable(
    ['measure', 'median', 'p90', 'p99', '÷ owner reply', '− owner reply', 'share of what paying adds'],
    [
      row("owner's reply (`POST …/context/{key}/reply`, JSON): the floor", s.owner, true),
      row('paid reply with `@x402/fetch` (`paidAsk`): 402, sign, paid request', s.paid, true),
      row('the paid request alone (signature made beforehand): verify, reply, settle', s.paidLeg, true),
      row('the unpaid request alone: 402 with the terms (price, owner on the chain)', s.unpaid, false),
      row("signing the authorization (the payer's client, no I/O)", s.sign, false),
      row("the facilitator's `/verify` alone (called directly)", s.verify, false),
      row("the facilitator's `/settle` alone (the transfer and its receipt)", s.settle, false),
      ['the four parts above (sum of medians)', ms(parts), '', '', '', '', share(parts)],
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const latency = stackLatency(stack);
  const heading = latency.rpcMs > 0 || latency.dbMs > 0 ? `${HEADING}, under latency` : `${HEADING}, on loopback`;
  const shares = (
    [
      ['the 402 round trip', s.unpaid],
      ['signing', s.sign],
      ['`/verify`', s.verify],
      ['`/settle`', s.settle],
    ] as const
  )
    .map(([name, xs]) => ({ name, ms: stats([...xs]).median }))
    .sort((a, b) => b.ms - a.ms);
  const inside = stats(s.paidLeg).median - ownerMedian - stats(s.verify).median - stats(s.settle).median;
  const around = paidMedian - stats(s.paidLeg).median - stats(s.unpaid).median - stats(s.sign).median;
  const reading = `Of the parts alone, ${shares.map((x) => `${x.name} ${ms(x.ms)}`).join(', ')} (medians, largest first): ${shares[0]!.name} is ${share(shares[0]!.ms)} of what paying adds; the rest (${ms(added - parts)}) is what no part alone shows: about ${ms(inside)} inside the paid request beyond the reply, \`/verify\` and \`/settle\` (the gateway's own work around the payment: the price and the owner read again, the authorization's claim, the settlement's record, its calls to the facilitator from workerd), and about ${ms(around)} in the whole paid reply beyond the paid request, the 402 and signing (the payer's context made on first use, \`@x402/fetch\`'s second request).`;
  const run = stackRun();
  const body = `Run ${runDate(startedAt)} against \`${run.command}\` (workers in ${run.runner}${latency.rpcMs > 0 ? '; the facilitator reaches the chain through the same delayed RPC as the workers' : ''}), ${describeMachine()}, ${describeLoad(loadAtStart, loadAtEnd)}; \`npm run bench:paid -- --rounds ${rounds}\`: ${rounds} rounds after ${WARM_UP} warm-up rounds, one client.

Each round the owner's non-streamed reply on a fresh context and a paid reply of ${PRICE_USD} USD from a fresh payer (a new context \`paid/{payer}\`), in alternating order, then the paid reply's parts alone, from the same payer: the unpaid 402, signing the EIP-3009 authorization, the paid request with that signature, and the local facilitator's \`/verify\` and \`/settle\` called directly with another freshly signed payment. **What paying adds**: ${ms(paidMedian - ownerMedian)} (median paid − median owner reply, ${ratio(paidMedian, ownerMedian)} the owner's reply). ${reading}

${table}
${unexpected > 0 ? `\n**${unexpected} rounds with an unexpected answer** (a paid reply without its transaction, a text different from the owner's, or a facilitator that refused): treat with care.\n` : ''}`;
  console.log(`\n${heading}\n\n${body}`);
  if (booleanFlag(flags, 'write')) log(`wrote ${await writeBenchmarkSection(heading, body)}`);
  return unexpected > 0 ? 1 : 0;
}

runBench('bench:paid', main);
