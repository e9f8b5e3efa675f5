/**
 * `npm run bench:reply [-- --rounds N] [--write]`: what the gateway adds to an agent's reply
 * against calling the same stand-in model (and the same tool server) directly, in one run on one
 * machine, against the running local stack (`DEV_WRANGLER=0 DEV_RATE_LIMITS=0 npm run dev`, with
 * its stand-in model: DEV_LLM=1, the default; loopback targets on, the default).
 *
 * It starts the example tool server (examples/tool-server) on a free loopback port, mints an
 * agent, saves LLM settings on the stand-in and registers the tool server, then runs `--rounds`
 * (30) rounds after 5 warm-up rounds; each round, on a fresh context, in order:
 * - a text reply streamed through the gateway (`replyStream`, tools off) and the same request
 *   streamed from the stand-in directly: time to the first delta, time to the whole reply;
 * - a reply with one tool call through the gateway (`use tool word_count …`) and the same work
 *   done directly (tools/list, the model, tools/call, the model again): the whole reply, and the
 *   tool's round trip (tool_call → tool_result at the client; the step's durationMs in the
 *   worker) against tools/call on the tool server.
 * - the same text reply with the agent's tools offered (memory tools and the tool server's): its first delta;
 * - the same text as an A2A `SendStreamingMessage` (./a2a.ts, the owner's token as for the reply),
 *   once in a context made before the rounds and once on a new contextId: the first artifact chunk.
 * Prints medians and p99s beside their floors and the goals (first delta ≤ 1.2 × direct + 10 ms, or
 * under the stack's latency switches ≤ 1.2 × (max(RPC, DB) + direct);
 * tool round trip ≤ tool server + 10 ms; the A2A first artifact chunk as the first delta), in two
 * sections (the reply's, A2A's); never asserts on them. `--write` replaces both sections of BENCHMARKS.md.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Address } from 'viem';
import type { AgentClient } from '../../../src/client';
import { mintAgent } from '../../lib/contracts';
import { waitForExit } from '../../lib/processes';
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
import { loggedInClient, newWallet, rpc, stackLatency } from '../lib/client';
import { startToolServer } from '../../lib/tool-server';
import { type A2aSamples, a2aStream, a2aTable } from './a2a';
import { directToolReply, streamModel } from './direct';

const WARM_UP = 5;
const HEADING = '## Agent replies (issue 17)';
const A2A_HEADING = '## A2A: the first artifact chunk (issue 34)';
const TOOL_MESSAGE = 'use tool word_count one two three';

const log = (line: string) => console.error(`bench:reply: ${line}`);

/** A gateway reply, streamed: ms to the first delta, to each tool event, to done. */
async function gatewayReply(agent: AgentClient, key: string, request: { message: string; tools?: boolean }) {
  const t0 = now();
  const stream = await agent.replyStream(key, request);
  const at = { firstDelta: Number.NaN, toolCall: Number.NaN, toolResult: Number.NaN, whole: Number.NaN };
  let text = '';
  let stepMs = Number.NaN;
  for await (const event of stream) {
    const t = now() - t0;
    if (event.event === 'delta') {
      if (Number.isNaN(at.firstDelta)) at.firstDelta = t;
      text += event.data.text;
    } else if (event.event === 'tool_call') at.toolCall = t;
    else if (event.event === 'tool_result') at.toolResult = t;
    else if (event.event === 'done') {
      at.whole = t;
      stepMs = event.data.steps[0]?.durationMs ?? Number.NaN;
    } else throw new BenchError(`the reply failed: ${event.data.error.code}`);
  }
  return { ...at, text, stepMs };
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

  const toolKey = randomUUID();
  const tools = await startToolServer(toolKey);
  try {
    const owner = newWallet();
    const minter = newWallet();
    await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']);
    const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
    await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, owner.address as Address, tokenId);
    const client = await loggedInClient(testnet, owner);
    const agent = client.agent(testnet.collection, tokenId);
    const agentUrl = `${testnet.baseUrl}${agent.path}`;
    await agent.saveLlmSettings({ provider: 'openai-compatible', model: llm.model, temperature: 0, maxTokens: 512, baseUrl: llm.baseUrl });
    await agent.addMcpConnection({ url: tools.url, auth: { type: 'header', headerName: 'x-api-key', value: toolKey } });
    const keys = Array.from({ length: (WARM_UP + rounds) * 3 }, (_, i) => `bench-reply-${i}`);
    // A2A's contexts (`a2a/{contextId}`) made beforehand too, as the reply's are; one more per round is new.
    const a2aIds = Array.from({ length: WARM_UP + rounds }, (_, i) => `bench-${tokenId}-${i}`);
    keys.push(...a2aIds.map((id) => `a2a/${id}`));
    for (let i = 0; i < keys.length; i += 100) await agent.createContexts(keys.slice(i, i + 100));
    const a2a: A2aSamples = { first: [], whole: [], firstUse: [], replyFirst: [], directFirst: [], directWhole: [] };

    const s = {
      gFirst: [] as number[],
      gWhole: [] as number[],
      dFirst: [] as number[],
      dWhole: [] as number[],
      gToolsFirst: [] as number[],
    };
    const t = {
      gWhole: [] as number[],
      dWhole: [] as number[],
      gTrip: [] as number[],
      gStep: [] as number[],
      dCall: [] as number[],
      dList: [] as number[],
    };
    const appendMs: number[] = [];
    let unexpected = 0;
    for (let i = 0; i < WARM_UP + rounds; i++) {
      const message = `hello from round ${i}`;
      const g = await gatewayReply(agent, keys[3 * i]!, { message, tools: false });
      const d = await streamModel(llm.baseUrl, [{ role: 'user', content: message }]);
      const gt = await gatewayReply(agent, keys[3 * i + 1]!, { message: TOOL_MESSAGE });
      // The same text reply with the agent's tools offered (memory_search, memory_read and the tool server's).
      const gm = await gatewayReply(agent, keys[3 * i + 2]!, { message });
      const dt = await directToolReply(llm.baseUrl, tools.url, toolKey, TOOL_MESSAGE);
      const aa = await a2aStream(agentUrl, client.token ?? '', message, a2aIds[i]!);
      const an = await a2aStream(agentUrl, client.token ?? '', message, `bench-new-${tokenId}-${i}`);
      if (g.text !== d.text || gm.text !== d.text || gt.text !== dt.text || Number.isNaN(gt.toolResult)) unexpected++;
      if (aa.text !== d.text || an.text !== d.text || aa.state !== 'TASK_STATE_COMPLETED' || an.state !== 'TASK_STATE_COMPLETED')
        unexpected++;
      const a0 = now();
      await agent.appendMessage(keys[3 * i]!, { role: 'user', message: 'an append, for scale' });
      const append = now() - a0;
      if (i < WARM_UP) continue;
      appendMs.push(append);
      a2a.first.push(aa.firstChunk);
      a2a.whole.push(aa.whole);
      a2a.firstUse.push(an.firstChunk);
      a2a.replyFirst.push(g.firstDelta);
      a2a.directFirst.push(d.firstDelta);
      a2a.directWhole.push(d.whole);
      s.gFirst.push(g.firstDelta);
      s.gToolsFirst.push(gm.firstDelta);
      s.gWhole.push(g.whole);
      s.dFirst.push(d.firstDelta);
      s.dWhole.push(d.whole);
      t.gWhole.push(gt.whole);
      t.dWhole.push(dt.whole);
      t.gTrip.push(gt.toolResult - gt.toolCall);
      t.gStep.push(gt.stepMs);
      t.dCall.push(dt.call);
      t.dList.push(dt.list);
    }

    const m = (xs: number[]) => summarize(xs);
    const row = (what: string, gateway: number[], direct: number[], goal: (g: number, d: number) => string) => {
      const [a, b] = [m(gateway), m(direct)];
      return [
        what,
        ms(a.median),
        ms(a.p99),
        ms(b.median),
        ms(b.p99),
        ratio(a.median, b.median),
        ms(a.median - b.median),
        goal(a.median, b.median),
      ];
    };
    const none = () => '';
    // With the chain and the database a network away (DEV_RPC_LATENCY_MS, DEV_DB_LATENCY_MS), the
    // floor is the slower of the two before the model's own first delta (issue 24).
    const latency = stackLatency(stack);
    const network = Math.max(latency.rpcMs, latency.dbMs);
    const firstGoal =
      network > 0
        ? (g: number, d: number) =>
            `≤ 1.2 × (${network} ms + direct) = ${ms(1.2 * (network + d))}: ${g <= 1.2 * (network + d) ? 'met' : 'missed'}`
        : (g: number, d: number) => `≤ ${ms(1.2 * d + 10)}: ${g <= 1.2 * d + 10 ? 'met' : 'missed'}`;
    const tripGoal = (g: number, d: number) => `≤ ${ms(d + 10)}: ${g <= d + 10 ? 'met' : 'missed'}`;
    const table = markdownTable(
      ['measure', 'gateway median', 'gateway p99', 'direct median', 'direct p99', 'ratio', 'added', 'goal'],
      [
        row('text reply: first delta', s.gFirst, s.dFirst, firstGoal),
        row('text reply with the tools offered (memory and MCP): first delta', s.gToolsFirst, s.dFirst, firstGoal),
        row('text reply: whole reply', s.gWhole, s.dWhole, none),
        row('reply with one tool call: whole reply', t.gWhole, t.dWhole, none),
        row('tool round trip: tool_call → tool_result at the client', t.gTrip, t.dCall, tripGoal),
        row("tool round trip: the step's durationMs (in the worker)", t.gStep, t.dCall, tripGoal),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    );
    const run = stackRun();
    const body = `Run ${runDate(startedAt)} against \`${run.command}\` (workers in ${run.runner}), ${describeMachine()}, load ${loadAtStart.toFixed(2)} → ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)}; \`npm run bench:reply -- --rounds ${rounds}\`: ${rounds} rounds after ${WARM_UP} warm-up rounds, one client, each round on fresh contexts.

"direct" is the same work without the gateway, from the benchmark's process: the stand-in model's
Chat Completions stream read with the client's SSE parser; for the tool reply, tools/list
(median ${ms(m(t.dList).median)}), the model, tools/call on the example tool server (the "direct" of
the round-trip rows) and the model again. The gateway's side is \`agent.replyStream\`: the gate
(JWT, owner on the chain) while the reply's reads run at once (settings with the key's entry,
template, tools snapshot, the context's newest messages), then the key opened, the lease taken,
the message appended, the model called through the AI SDK, the reply stored, then \`done\`.
The stand-in writes its whole answer at once (no delay between words), so a first delta is
nearly the whole reply on both sides. For scale, one
\`appendMessage\` through the gateway (the gate and one stored message, no model) took
${ms(m(appendMs).median)} (median) in the same rounds.

${table}
${unexpected > 0 ? `\n**${unexpected} rounds where the gateway's text differed from the direct text** (treat with care).\n` : ''}`;
    console.log(`\n${HEADING}\n\n${body}`);
    const a2aBody = `Run ${runDate(startedAt)} in the same run as the section above (same command, machine and rounds): each round, after the reply and the direct stream, the same message as an A2A \`SendStreamingMessage\` on \`POST …/a2a\` with the owner's token, read with a plain fetch and the client's SSE parser (the parser of the floor), first in a context \`a2a/{contextId}\` made before the rounds (as the reply's contexts are), then on a new contextId (its context created by the request).

"direct" is the stand-in's first delta (or whole stream) streamed from the benchmark's process in the same round. The A2A stream answers the task, \`working\`, the reply's text as artifact chunks, then \`completed\`; the stand-in writes its answer at once, so the first chunk is nearly the whole text.

${a2aTable(a2a, firstGoal)}
`;
    console.log(`\n${A2A_HEADING}\n\n${a2aBody}`);
    if (booleanFlag(flags, 'write')) {
      log(`wrote ${await writeBenchmarkSection(HEADING, body)}`);
      log(`wrote ${await writeBenchmarkSection(A2A_HEADING, a2aBody)}`);
    }
    return unexpected > 0 ? 1 : 0;
  } finally {
    tools.child.kill('SIGTERM');
    if (tools.child.pid !== undefined) await waitForExit(tools.child.pid, 5_000);
  }
}

runBench('bench:reply', main);
