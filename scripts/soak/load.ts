/**
 * The soak's mixed load: one agent minted to a fresh wallet, with LLM settings on the stand-in
 * model, the example tool server registered and an agent key; then `clients` loops, each on its
 * own contexts, picking operations by weight with a pause between them (a loopback-sized rate):
 * logins, appends and batches with Idempotency-Keys (a write that gets no answer or a 5xx is sent
 * again once with the same key), reads of a page or of the key list, memory search, replies with
 * a tool call through the stand-in model, and the same reads and appends with the agent key.
 * Every request goes through the typed client with the recording fetch; every acknowledged write
 * is remembered for the read-back.
 */
import { randomUUID } from 'node:crypto';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type AgentClient, type GatewayClient, createGatewayClient, isGatewayError } from '../../src/client';
import { ANVIL_ACCOUNTS, mintAgent } from '../lib/contracts';
import { sleep } from '../lib/processes';
import type { Recorder } from './record';
import type { SoakStack } from './stack';

/** A write the gateway acknowledged (2xx): what must be found stored afterwards. */
export interface AckedMessage {
  context: string;
  id: number;
  role: string;
  text: string;
}

export interface AckedReply {
  context: string;
  /** The stored assistant message (null when the model said nothing). */
  reply: AckedMessage | null;
  /** The reply's own user message, found by its unique text. */
  asked: string;
}

export interface LoadResult {
  messages: AckedMessage[];
  replies: AckedReply[];
  /** Every context the load wrote to (the read-back walks them all). */
  contexts: string[];
  /** Writes sent again with their Idempotency-Key after no answer or a 5xx, and how many of those were replays. */
  retried: number;
  replayed: number;
  /** Replies whose tool step came back as an error (the tool server's 500s): a result, not a failure. */
  toolErrorSteps: number;
}

export interface SoakAgent {
  owner: AgentClient;
  /** The same agent through an agent key (contexts:read, contexts:write, reply). */
  viaKey: AgentClient;
  loginClient: () => GatewayClient;
  /** Not recorded: for set-up and the read-back. */
  reader: AgentClient;
}

const TIMEOUT_MS = 30_000;

/** Mints the agent and sets it up (not recorded: the load has not begun). */
export async function setUpAgent(stack: SoakStack, recorder: Recorder): Promise<SoakAgent> {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  const tokenId = BigInt(Date.now());
  await mintAgent(stack.rpcUrl, ANVIL_ACCOUNTS[0].privateKey, stack.collection as Address, account.address, tokenId);
  const login = { account, chainId: stack.chainId };
  const setup = createGatewayClient({ baseUrl: stack.baseUrl, login, timeoutMs: TIMEOUT_MS });
  await setup.login();
  const agent = setup.agent(stack.collection, tokenId);
  await agent.saveLlmSettings({
    provider: 'openai-compatible',
    model: stack.llm.model,
    baseUrl: stack.llm.baseUrl,
    temperature: 0,
    maxTokens: 256,
  });
  await agent.addMcpConnection({ url: stack.toolUrl, auth: { type: 'header', headerName: 'x-api-key', value: stack.toolKey } });
  const { key } = await agent.createAgentKey({ name: 'soak', scopes: ['contexts:read', 'contexts:write', 'reply'] });
  const owner = createGatewayClient({
    baseUrl: stack.baseUrl,
    login,
    token: setup.token,
    timeoutMs: TIMEOUT_MS,
    fetch: recorder.fetchFor('token'),
  });
  const viaKey = createGatewayClient({ baseUrl: stack.baseUrl, apiKey: key, timeoutMs: TIMEOUT_MS, fetch: recorder.fetchFor('key') });
  return {
    owner: owner.agent(stack.collection, tokenId),
    viaKey: viaKey.agent(stack.collection, tokenId),
    loginClient: () => createGatewayClient({ baseUrl: stack.baseUrl, login, timeoutMs: TIMEOUT_MS, fetch: recorder.fetchFor('none') }),
    reader: agent,
  };
}

type Operation = 'login' | 'append' | 'batch' | 'list' | 'search' | 'reply' | 'keyAppend' | 'keyRead';
const WEIGHTS: [Operation, number][] = [
  ['login', 4],
  ['append', 22],
  ['batch', 10],
  ['list', 14],
  ['search', 12],
  ['reply', 14],
  ['keyAppend', 12],
  ['keyRead', 12],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((s, [, w]) => s + w, 0);

/** A small deterministic generator (mulberry32), so a run's mix is the same for a seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick(r: number): Operation {
  let x = r * TOTAL_WEIGHT;
  for (const [op, w] of WEIGHTS) {
    x -= w;
    if (x < 0) return op;
  }
  return 'append';
}

/** True when a write may be sent again with the same key: no answer, or a 5xx. */
const retryable = (err: unknown) => isGatewayError(err) && (err.status === 0 || err.status >= 500);

/** Runs the load until `stopAt` (ms on the recorder's clock). */
export async function runLoad(
  agent: SoakAgent,
  recorder: Recorder,
  options: { clients: number; pauseMs: number; stopAt: number },
): Promise<LoadResult> {
  const result: LoadResult = { messages: [], replies: [], contexts: [], retried: 0, replayed: 0, toolErrorSteps: 0 };
  const contextsOf = (c: number) => [`soak-${c}-a`, `soak-${c}-b`, `soak-${c}-reply`];
  for (let c = 0; c < options.clients; c++) {
    await agent.reader.createContexts(contextsOf(c)); // set-up, not recorded
    result.contexts.push(...contextsOf(c));
  }

  /** Sends a write, and once more with the same Idempotency-Key if it got no answer or a 5xx. */
  async function write<T extends { replayed: boolean }>(send: (idempotencyKey: string) => Promise<T>): Promise<T | undefined> {
    const idempotencyKey = `soak-${randomUUID()}`;
    try {
      return await send(idempotencyKey);
    } catch (err) {
      if (!retryable(err)) return undefined;
    }
    await sleep(1_000);
    result.retried++;
    try {
      const answer = await send(idempotencyKey);
      if (answer.replayed) result.replayed++;
      return answer;
    } catch {
      return undefined;
    }
  }

  async function client(c: number): Promise<void> {
    const next = random(0x50a4 + c);
    const [ctxA, ctxB, ctxReply] = contextsOf(c) as [string, string, string];
    let n = 0;
    while (recorder.now() < options.stopAt) {
      const op = pick(next());
      const tag = `c${c}-${++n}`;
      const context = next() < 0.5 ? ctxA : ctxB;
      try {
        switch (op) {
          case 'login':
            await agent.loginClient().login();
            break;
          case 'append':
          case 'keyAppend': {
            const via = op === 'append' ? agent.owner : agent.viaKey;
            const text = `soak ${tag} ${op} note about the harbour`;
            const answer = await write((idempotencyKey) => via.appendMessage(context, { role: 'user', message: text }, { idempotencyKey }));
            if (answer) result.messages.push({ context, id: answer.message.id, role: 'user', text });
            break;
          }
          case 'batch': {
            const texts = [1, 2, 3, 4, 5].map((i) => `soak ${tag} batch ${i} of 5 about the lighthouse`);
            const messages = texts.map((message) => ({ role: 'user' as const, message }));
            const answer = await write((idempotencyKey) => agent.owner.appendMessages(context, messages, { idempotencyKey }));
            for (const [i, m] of (answer?.messages ?? []).entries())
              result.messages.push({ context, id: m.id, role: 'user', text: texts[i]! });
            break;
          }
          case 'list':
            if (next() < 0.5) await agent.owner.readMessages(context, { limit: 20 });
            else await agent.owner.listContextKeys({});
            break;
          case 'search':
            await agent.owner.searchMemory({ query: next() < 0.5 ? 'harbour' : 'lighthouse', limit: 10 });
            break;
          case 'keyRead':
            if (next() < 0.5) await agent.viaKey.readMessages(context, { limit: 20 });
            else await agent.viaKey.searchMemory({ query: 'harbour', limit: 10 });
            break;
          case 'reply': {
            const asked = `use tool echo soak ${tag} reply`;
            const answer = await agent.owner.reply(ctxReply, { message: asked }, { idempotencyKey: `soak-${randomUUID()}` });
            if (answer.steps.some((s) => s.isError)) result.toolErrorSteps++;
            const stored = answer.reply;
            result.replies.push({
              context: ctxReply,
              asked,
              reply: stored ? { context: ctxReply, id: stored.id, role: stored.role, text: stored.message } : null,
            });
            break;
          }
        }
      } catch {
        /* recorded by the fetch; the counts say what failed */
      }
      await sleep(options.pauseMs * (0.5 + next()));
    }
  }

  await Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)));
  return result;
}
