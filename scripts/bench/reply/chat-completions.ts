/**
 * `node --import tsx scripts/bench/reply/chat-completions.ts [--rounds N] [--write]`: what the
 * OpenAI-compatible route (`…/v1/chat/completions`, issue 25) adds to the agent's reply route, in
 * one run on one machine, against the running local stack (`DEV_WRANGLER=0 DEV_RATE_LIMITS=0 npm
 * run dev`, with its stand-in model).
 *
 * It mints an agent, saves LLM settings on the stand-in and creates a `reply` key, then runs
 * `--rounds` (30) rounds after 5 warm-up rounds, each on fresh contexts, in order: the reply route
 * streamed (the typed client's `replyStream`, with the key), the chat-completions route streamed
 * and not (the official `openai` client, the same key), the route on a context that does not exist
 * yet (its first use: created, then answered), and the stand-in streamed directly (the floor).
 * Prints medians and p99s beside the reply route's and the floor; never asserts on them.
 */
import os from 'node:os';
import OpenAI from 'openai';
import type { Address } from 'viem';
import { createGatewayClient } from '../../../src/client';
import { mintAgent } from '../../lib/contracts';
import {
  BenchError,
  booleanFlag,
  describeMachine,
  markdownTable,
  ms,
  now,
  numberFlag,
  parseFlags,
  ratio,
  readStack,
  rejectUnknownFlags,
  runBench,
  runDate,
  stackRun,
  summarize,
  writeBenchmarkSection,
} from '../lib';
import { loggedInClient, newWallet, rpc } from '../lib/client';
import { streamModel } from './direct';

const WARM_UP = 5;
const HEADING = '## OpenAI-compatible chat completions (issue 25)';

const log = (line: string) => console.error(`bench:chat-completions: ${line}`);

interface Timing {
  firstDelta: number;
  whole: number;
  text: string;
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['rounds', 'write']);
  const rounds = numberFlag(flags, 'rounds', 30);
  const stack = await readStack();
  const llm = (stack as { llm?: { baseUrl: string; model: string } | null }).llm;
  if (!llm) throw new BenchError('stack.json names no stand-in model: start the stack with DEV_LLM=1 (the default)');
  const { testnet } = stack;
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? Number.NaN;
  log(`stack: testnet ${testnet.baseUrl}, stand-in ${llm.baseUrl}; ${describeMachine()}; load ${loadAtStart.toFixed(2)}`);

  const owner = newWallet();
  const minter = newWallet();
  await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']);
  const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
  await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, owner.address as Address, tokenId);
  const ownerAgent = (await loggedInClient(testnet, owner)).agent(testnet.collection, tokenId);
  await ownerAgent.saveLlmSettings({
    provider: 'openai-compatible',
    model: llm.model,
    temperature: 0,
    maxTokens: 512,
    baseUrl: llm.baseUrl,
  });
  const { key } = await ownerAgent.createAgentKey({ name: 'bench', scopes: ['reply'] });
  // Both routes with the same credential: the key (its lookup rides beside the owner check).
  const agent = createGatewayClient({ baseUrl: testnet.baseUrl, token: key }).agent(testnet.collection, tokenId);
  const openai = new OpenAI({ baseURL: `${testnet.baseUrl}${agent.path}/v1`, apiKey: key, maxRetries: 0 });
  const contexts = Array.from({ length: (WARM_UP + rounds) * 3 }, (_, i) => `bench-chat-${i}`);
  for (let i = 0; i < contexts.length; i += 100) await ownerAgent.createContexts(contexts.slice(i, i + 100));

  const replyRoute = async (contextKey: string, message: string): Promise<Timing> => {
    const t0 = now();
    let firstDelta = Number.NaN;
    let text = '';
    for await (const event of await agent.replyStream(contextKey, { message })) {
      if (event.event === 'delta') {
        if (Number.isNaN(firstDelta)) firstDelta = now() - t0;
        text += event.data.text;
      } else if (event.event === 'error') throw new BenchError(`the reply failed: ${event.data.error.code}`);
    }
    return { firstDelta, whole: now() - t0, text };
  };
  const streamed = async (user: string, message: string): Promise<Timing> => {
    const t0 = now();
    let firstDelta = Number.NaN;
    let text = '';
    const stream = await openai.chat.completions.create({ model: 'x', user, stream: true, messages: [{ role: 'user', content: message }] });
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (!piece) continue;
      if (Number.isNaN(firstDelta)) firstDelta = now() - t0;
      text += piece;
    }
    return { firstDelta, whole: now() - t0, text };
  };
  const whole = async (user: string, message: string): Promise<Timing> => {
    const t0 = now();
    const completion = await openai.chat.completions.create({ model: 'x', user, messages: [{ role: 'user', content: message }] });
    const t = now() - t0;
    return { firstDelta: t, whole: t, text: completion.choices[0]?.message.content ?? '' };
  };

  const samples = {
    reply: [] as Timing[],
    streamed: [] as Timing[],
    json: [] as Timing[],
    firstUse: [] as Timing[],
    direct: [] as Timing[],
  };
  let unexpected = 0;
  for (let i = 0; i < WARM_UP + rounds; i++) {
    const message = `hello from round ${i}`;
    const r = await replyRoute(contexts[3 * i]!, message);
    const s = await streamed(contexts[3 * i + 1]!, message);
    const j = await whole(contexts[3 * i + 2]!, message);
    const f = await whole(`bench-chat-new-${tokenId}-${i}`, message);
    const d = await streamModel(llm.baseUrl, [{ role: 'user', content: message }]);
    if (new Set([r.text, s.text, j.text, f.text, d.text]).size !== 1) unexpected++;
    if (i < WARM_UP) continue;
    samples.reply.push(r);
    samples.streamed.push(s);
    samples.json.push(j);
    samples.firstUse.push(f);
    samples.direct.push(d);
  }

  const m = (xs: Timing[], pick: (t: Timing) => number) => summarize(xs.map(pick));
  const row = (what: string, xs: Timing[], pick: (t: Timing) => number, against: Timing[], floor: Timing[]) => {
    const [a, b, c] = [m(xs, pick), m(against, pick), m(floor, pick)];
    return [what, ms(a.median), ms(a.p99), ms(b.median), ratio(a.median, b.median), ms(a.median - b.median), ms(c.median)];
  };
  const first = (t: Timing) => t.firstDelta;
  const all = (t: Timing) => t.whole;
  const table = markdownTable(
    ['measure', 'median', 'p99', 'reply route median', 'ratio', 'added', 'stand-in direct median'],
    [
      row('streamed (`stream: true`): first delta', samples.streamed, first, samples.reply, samples.direct),
      row('streamed (`stream: true`): whole reply', samples.streamed, all, samples.reply, samples.direct),
      row('not streamed: whole reply', samples.json, all, samples.reply, samples.direct),
      row(
        "not streamed, the conversation's first request (context created): whole reply",
        samples.firstUse,
        all,
        samples.reply,
        samples.direct,
      ),
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const run = stackRun();
  const body = `Run ${runDate(startedAt)} against \`${run.command}\` (workers in ${run.runner}), ${describeMachine()}, load ${loadAtStart.toFixed(2)} → ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)}; \`node --import tsx scripts/bench/reply/chat-completions.ts --rounds ${rounds}\`: ${rounds} rounds after ${WARM_UP} warm-up rounds, one client, each request on its own context, all with one agent key (scope \`reply\`).

The reply route is \`agent.replyStream\` of the typed client (the floor this route stands on: the
same reply service); the chat-completions rows use the official \`openai\` client on
\`…/v1/chat/completions\`; "stand-in direct" is the model streamed from the benchmark's process.
The last row's context does not exist before the request: the route's first reply finds it
missing after its reads, creates it (after the owner check) and prepares the reply again.
"added" includes what the two clients do differently (the \`openai\` client's own headers and
parsing), and the machine was shared with other work (load above): read it as a few ms at most.

${table}
${unexpected > 0 ? `\n**${unexpected} rounds where the texts differed** (treat with care).\n` : ''}`;
  console.log(`\n${HEADING}\n\n${body}`);
  if (booleanFlag(flags, 'write')) log(`wrote ${await writeBenchmarkSection(HEADING, body)}`);
  return unexpected > 0 ? 1 : 0;
}

runBench('bench:chat-completions', main);
