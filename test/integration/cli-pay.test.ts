/**
 * `agent-gateway pay ask` spawned as users run it, against workerd with real Postgres, the local
 * chain's USDC stand-in, the local x402 facilitator and the stand-in model: a dev wallet pays the
 * owner's price from the CLI (the transaction named, the balances moved by exactly the price);
 * a price over `--max-usd` is refused before anything is signed (exit 3, no balance moves, the
 * model not called); an agent without a price is 404 pricing_not_set (exit 1). The owner's
 * `settings set --price` and `--no-price` turn paid replies on and off from the CLI too.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import type { TestAccount } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { cliAgent } from '../support/cli-agent';
import { deployment } from '../support/http';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';
import { fundedPayer, pricedAgent, usdcBalance } from '../support/x402';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const CHAIN = stack.testnet.chainId;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let home: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  [llm, home] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), tempDir()]);
  worker = await replyWorker(stack, llm, {});
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await home?.remove();
  await closePg();
});

const balance = (address: string) => usdcBalance(stack.testnet.rpcUrl, CHAIN, address);

const payer = () => fundedPayer(stack.testnet);

/** An agent on the stand-in model, with `pricing` set by its owner's login (none: no price). */
const agentPriced = (pricing?: { askUsd: string }) =>
  pricing ? pricedAgent(worker.deployment, API_KEY, pricing) : replyAgent(worker.deployment, API_KEY);

const payAsk = (agent: { collection: string; tokenId: string | bigint }, who: TestAccount, extra: string[]) =>
  runCli(
    ['pay', 'ask', '--base-url', worker.url, '--collection', agent.collection, '--token-id', String(agent.tokenId), ...extra],
    cliEnv({ HOME: home.dir, AGENT_GATEWAY_PRIVATE_KEY: who.privateKey }),
    120_000,
  );

describe('agent-gateway pay ask', () => {
  it('pays the price from the wallet of AGENT_GATEWAY_PRIVATE_KEY, prints the reply and the transaction; --json has it too', async () => {
    const agent = await agentPriced({ askUsd: '0.01' });
    const who = await payer();
    const [payerBefore, ownerBefore] = await Promise.all([balance(who.address), balance(agent.owner.address)]);

    const paid = await payAsk(agent, who, ['--message', 'what do you know?', '--max-usd', '0.05']);
    expect(paid.code, paid.output).toBe(0);
    expect(paid.stdout.startsWith(STANDIN_PREFIX), paid.output).toBe(true);
    expect(paid.stdout).toContain('what do you know?');
    const line = /^paid 0\.01 USDC to (0x[0-9a-fA-F]{40}) in (0x[0-9a-f]{64})$/m.exec(paid.stderr);
    expect(line, paid.output).not.toBeNull();
    expect(line![1]).toBe(agent.owner.address);
    expect(paid.output).not.toContain(who.privateKey.slice(2));
    expect(await balance(who.address)).toBe(payerBefore - 10_000n);
    expect(await balance(agent.owner.address)).toBe(ownerBefore + 10_000n);

    const json = await payAsk(agent, who, ['--message', 'again, as JSON', '--json']);
    expect(json.code, json.output).toBe(0);
    const answer = JSON.parse(json.stdout) as { reply: { message: string }; transaction: string };
    expect(answer.reply.message).toContain('again, as JSON');
    expect(answer.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answer.transaction).not.toBe(line![2]);
    expect(await balance(who.address)).toBe(payerBefore - 20_000n);
  });

  it('refuses a price over --max-usd before signing: exit 3, the price named, nothing moves, the model not called', async () => {
    const agent = await agentPriced({ askUsd: '0.5' });
    const who = await payer();
    const [payerBefore, ownerBefore] = await Promise.all([balance(who.address), balance(agent.owner.address)]);
    const calls = llm.completions().length;

    const refused = await payAsk(agent, who, ['--message', 'too dear', '--max-usd', '0.1']);
    expect(refused.code, refused.output).toBe(3);
    expect(refused.stderr).toContain('the agent asks 0.5 USD per reply, more than --max-usd 0.1: nothing was paid');
    expect(refused.stdout).toBe('');
    // The default cap is 1 USD: 0.5 passes it, so the refusal above was --max-usd's.
    expect(llm.completions().length).toBe(calls);
    expect(await balance(who.address)).toBe(payerBefore);
    expect(await balance(agent.owner.address)).toBe(ownerBefore);
  });

  it('an agent without a price: 404 pricing_not_set, exit 1, nothing moves; a bad --max-usd is a usage error', async () => {
    const agent = await agentPriced();
    const who = await payer();
    const before = await balance(who.address);
    const none = await payAsk(agent, who, ['--message', 'hello']);
    expect(none.code, none.output).toBe(1);
    expect(none.stderr).toContain('404 pricing_not_set');
    expect(await balance(who.address)).toBe(before);

    const bad = await payAsk(agent, who, ['--message', 'hello', '--max-usd', '0']);
    expect(bad.code, bad.output).toBe(2);
    expect(bad.stderr).toContain('--max-usd takes US dollars above 0');
  });

  it('the owner prices the agent with settings set --price, settings show says so, a save without it keeps it, --no-price ends it', async () => {
    // The CLI's login needs the harness's own worker (its sign-in domain names its port).
    const owner = await cliAgent(deployment('testnet'));
    try {
      const first = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--temperature', '0', '--max-tokens', '256'];
      const set = await runCli(['settings', 'set', ...first, '--price', '0.02', '--price-memory-tools'], owner.env);
      expect(set.code, set.output).toBe(0);
      expect(set.stdout).toMatch(/^paid replies: +0\.02 USD in USDC to the owner, with the memory tools$/m);
      expect((await owner.agent.getLlmSettings()).pricing).toEqual({ askUsd: '0.02', memoryTools: true });

      const kept = await runCli(['settings', 'set', '--summaries', 'off'], owner.env);
      expect(kept.code, kept.output).toBe(0);
      expect((await owner.agent.getLlmSettings()).pricing).toEqual({ askUsd: '0.02', memoryTools: true });
      const shown = await runCli(['settings', 'show'], owner.env);
      expect(shown.stdout).toMatch(/^paid replies: +0\.02 USD/m);

      const bad = await runCli(['settings', 'set', '--price', '0.0001'], owner.env);
      expect(bad.code, bad.output).toBe(2);
      expect(bad.stderr).toContain('--price: a price is a decimal string of US dollars from 0.001 to 100');

      const off = await runCli(['settings', 'set', '--no-price'], owner.env);
      expect(off.code, off.output).toBe(0);
      expect(off.stdout).toMatch(/^paid replies: +off \(no price\)$/m);
      expect((await owner.agent.getLlmSettings()).pricing).toBeNull();
    } finally {
      await owner.remove();
    }
  });
});
