/**
 * Hostile model answers as a measured figure (issue 22): a model server on loopback answers every
 * Chat Completions request at random within the shape's reach (text with NUL and lone surrogates,
 * reasoning, tool calls by the thousand or with unreadable arguments, floods of megabytes, broken
 * chunks, random finish reasons and usage, HTTP faults, a stream cut short), and the reply must
 * hold: never a 500, only the statuses the reply route declares for a model's faults, no stack or
 * internal error name in a body, the reply and its steps within their bounds, the lease released
 * (a second reply never meets 409), and the worker's memory bounded (workerd's peak resident set).
 *
 * Seeded and bounded (`FUZZ_MODEL_RUNS`, default 40; `FUZZ_SEED`, default 22); `npm run test:fuzz`
 * runs more. The figures are printed at the end.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { parseSse, replyAgent, replyWorker, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const RUNS = Number(process.env.FUZZ_MODEL_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 22);
const API_KEY = `sk-hostile-${crypto.randomUUID()}`;

/** One piece of a streamed answer. */
type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'call'; index: number; id?: string; name?: string; args?: string }
  | { kind: 'calls'; count: number; name: string }
  | { kind: 'flood'; what: 'text' | 'reasoning' | 'args'; megabytes: number }
  | { kind: 'nameless'; megabytes: number }
  | { kind: 'finish'; reason: string | null }
  | { kind: 'usage'; usage: unknown }
  | { kind: 'garbage'; line: string }
  | { kind: 'cut' }
  | { kind: 'pause'; ms: number };

/** One model call's answer: an HTTP fault, a JSON body of any shape, or a stream of pieces. */
type Answer =
  | { kind: 'status'; status: number; retryAfter?: string; body: string }
  | { kind: 'json'; body: unknown }
  | { kind: 'stream'; pieces: Piece[]; done: boolean };

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\u202e', '😀', '</script>', '{{a}}', '\\u0000'),
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'w'.repeat(n)),
);
const toolName = fc.oneof(fc.constantFrom('echo', 'echo', 'nope', '', 'echo\u0000', 'a'.repeat(300)), fc.string({ maxLength: 20 }));
const args = fc.oneof(
  fc.record({ text: hostileText }).map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  hostileText,
  fc.constantFrom('{', '{"text":', 'null', '[]', '{"text":"\\u0000\\ud800"}'),
);

const piece: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 2, arbitrary: hostileText.map((text) => ({ kind: 'reasoning' as const, text })) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('call' as const),
        index: fc.oneof(fc.nat({ max: 3 }), fc.constantFrom(-1, 1_000_000, 2 ** 31)),
        id: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })),
        name: toolName,
        args,
      },
      { requiredKeys: ['kind', 'index'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('calls' as const), count: fc.integer({ min: 2, max: 1_000 }), name: toolName }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('flood' as const),
      what: fc.constantFrom('text' as const, 'reasoning' as const, 'args' as const),
      megabytes: fc.integer({ min: 1, max: 48 }),
    }),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 24 }).map((megabytes) => ({ kind: 'nameless' as const, megabytes })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'function_call', null), fc.string({ maxLength: 10 }))
      .map((reason) => ({ kind: 'finish' as const, reason })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.record({ prompt_tokens: fc.integer(), completion_tokens: fc.integer() }),
        fc.record({ prompt_tokens: fc.double(), completion_tokens: fc.constantFrom('many', null, -1, 1e308) }),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map((usage) => ({ kind: 'usage' as const, usage })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom('data: {', 'data: []', 'data: null', 'event: error', ': comment', 'data: {"choices":7}'),
        fc.string({ maxLength: 30 }),
      )
      .map((line) => ({ kind: 'garbage' as const, line })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'cut' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }).map((ms) => ({ kind: 'pause' as const, ms })) },
);

const answer: fc.Arbitrary<Answer> = fc.oneof(
  {
    weight: 8,
    // Half of them end as a provider would (a finish reason, then [DONE]), so the loop goes on to tools and later steps.
    arbitrary: fc
      .record({ kind: fc.constant('stream' as const), pieces: fc.array(piece, { maxLength: 8 }), done: fc.boolean() })
      .map((a) => (a.done ? { ...a, pieces: [...a.pieces, { kind: 'finish' as const, reason: 'tool_calls' }] } : a)),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      status: fc.constantFrom(400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529, 302),
      retryAfter: fc.option(fc.constantFrom('1', '-5', 'soon', '99999999999', ''), { nil: undefined }),
      body: fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), body: fc.jsonValue({ maxDepth: 3 }) }) },
);

const request = fc.record({
  answers: fc.array(answer, { minLength: 1, maxLength: 4 }),
  // The caller's message is valid (the request's own checks are another test's): the model is the hostile part.
  message: fc.string({ minLength: 2, maxLength: 2_000 }).filter((t) => t.trim().length >= 2 && t.isWellFormed() && !t.includes('\u0000')),
  stream: fc.boolean(),
});

/** The answers the hostile model gives next, one per model call; then a plain text. */
let queue: Answer[] = [];
let modelCalls = 0;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes `data`, waiting for the socket to drain; false once the client has gone. */
async function write(res: ServerResponse, data: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(data)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done).off('close', done);
        resolve();
      };
      res.on('drain', done).on('close', done);
    });
  }
  return !res.destroyed;
}

const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion.chunk', created: 1, model: 'hostile', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage === undefined ? {} : { usage }) })}\n\n`;

async function stream(res: ServerResponse, pieces: Piece[], done: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const p of pieces) {
    let ok = true;
    switch (p.kind) {
      case 'text':
        ok = await write(res, chunk({ content: p.text }));
        break;
      case 'reasoning':
        ok = await write(res, chunk({ reasoning_content: p.text }));
        break;
      case 'call':
        ok = await write(
          res,
          chunk({ tool_calls: [{ index: p.index, id: p.id, type: 'function', function: { name: p.name, arguments: p.args } }] }),
        );
        break;
      case 'calls':
        for (let i = 0; i < p.count && ok; i++) {
          ok = await write(
            res,
            chunk({
              tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name: p.name, arguments: `{"text":"t${i}"}` } }],
            }),
          );
        }
        break;
      case 'flood': {
        const piece64k = 'f'.repeat(64 * 1024);
        const delta =
          p.what === 'text'
            ? { content: piece64k }
            : p.what === 'reasoning'
              ? { reasoning_content: piece64k }
              : { tool_calls: [{ index: 0, function: { arguments: piece64k } }] };
        if (p.what === 'args')
          ok = await write(
            res,
            chunk({ tool_calls: [{ index: 0, id: 'flood', type: 'function', function: { name: 'echo', arguments: '{"text":"' } }] }),
          );
        const line = chunk(delta);
        for (let i = 0; i < p.megabytes * 16 && ok; i++) ok = await write(res, line);
        break;
      }
      case 'nameless': {
        const line = chunk({ tool_calls: [{ index: 0, function: { arguments: 'n'.repeat(64 * 1024) } }] });
        for (let i = 0; i < p.megabytes * 16 && ok; i++) ok = await write(res, line);
        break;
      }
      case 'finish':
        ok = await write(res, chunk({}, p.reason));
        break;
      case 'usage':
        ok = await write(
          res,
          `data: ${JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion.chunk', choices: [], usage: p.usage })}\n\n`,
        );
        break;
      case 'garbage':
        ok = await write(res, `${p.line}\n\n`);
        break;
      case 'cut':
        res.destroy();
        return;
      case 'pause':
        await sleep(p.ms);
        break;
    }
    if (!ok) return;
  }
  if (done) await write(res, 'data: [DONE]\n\n');
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function hostile(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await readBody(req);
  modelCalls++;
  const next: Answer = queue.shift() ?? {
    kind: 'stream',
    pieces: [
      { kind: 'text', text: 'fine.' },
      { kind: 'finish', reason: 'stop' },
    ],
    done: true,
  };
  if (next.kind === 'status') {
    res.writeHead(next.status, {
      'content-type': 'application/json',
      ...(next.retryAfter !== undefined ? { 'retry-after': next.retryAfter } : {}),
      ...(next.status === 302 ? { location: 'http://169.254.169.254/latest/meta-data/' } : {}),
    });
    res.end(next.body);
    return;
  }
  if (next.kind === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(next.body));
    return;
  }
  await stream(res, next.pieces, next.done);
}

/** Resident and peak resident memory (KiB) of the workerd processes this test process started. */
function workerdMemory(): { rss: number; peak: number } {
  let rss = 0;
  let peak = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (!/^Name:\s+workerd$/m.test(status) || !new RegExp(`^PPid:\\s+${process.pid}$`, 'm').test(status)) continue;
      rss += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      peak += Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // a process that ended meanwhile
    }
  }
  return { rss, peak };
}

let server: ReturnType<typeof createServer>;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let who: Awaited<ReturnType<typeof replyAgent>>;

beforeAll(async () => {
  server = createServer((req, res) => {
    hostile(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tools = await startSwitchableTools();
  worker = await replyWorker(stack, { origin } as StandinLlm, { tools: tools.url }, { LLM_TIMEOUT_MS: '3000' });
  who = await replyAgent(worker.deployment, API_KEY);
  const reg = await who.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
  });
  if (reg.status !== 200) throw new Error(`registration failed: ${reg.text}`);
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await tools?.close();
  await new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

/** What a model's faults may make of a reply (the route's documented statuses for them). */
const MODEL_FAULTS: Record<number, string[]> = {
  424: ['llm_credential_rejected'],
  502: ['llm_unavailable'],
  503: ['llm_rate_limited'],
  504: ['llm_timeout'],
};
const LEAKS = [/\n\s+at .*:\d+:\d+/, /node_modules|\.ts:\d+|file:\/\//, /PostgresError|NeonDbError|TypeError|RangeError|SyntaxError/];
/** What a JSON answer may weigh at most: 64 K characters of reply, 64 steps with their capped arguments. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

describe('floods a model can send', () => {
  // Text, reasoning and named arguments are cut as they stream (+2 to +7 MB measured). Arguments
  // without a name are held by the provider until the answer's 8 MiB cap (MAX_MODEL_ANSWER_BYTES)
  // stops the read: the held string, the chunks in the stream stages and the garbage not yet
  // collected measure 28 to 33 MB, so their bound is 40 MB; without the cap they pass 100 MB.
  it("48 MB of text, reasoning or tool-call arguments raises workerd's peak memory by less than 32 MB; arguments without a name by less than 40 MB", async () => {
    const floods: Answer[] = [
      ...(['text', 'reasoning', 'args'] as const).map(
        (what): Answer => ({
          kind: 'stream',
          pieces: [
            { kind: 'flood', what, megabytes: 48 },
            { kind: 'finish', reason: 'stop' },
          ],
          done: true,
        }),
      ),
      // Arguments before any name: the provider holds them without passing them on.
      {
        kind: 'stream',
        pieces: [
          { kind: 'nameless', megabytes: 48 },
          { kind: 'finish', reason: 'stop' },
        ],
        done: true,
      },
    ];
    const grew: string[] = [];
    for (const flood of floods) {
      const before = workerdMemory();
      queue = [flood];
      const res = await who.call(`/context/${seg('chat')}/reply`, { method: 'POST', json: { message: 'flood me' } });
      expect([200, 502], res.text.slice(0, 300)).toContain(res.status);
      const after = workerdMemory();
      const mb = Math.round((after.peak - Math.max(before.peak, before.rss)) / 1024);
      grew.push(`${JSON.stringify((flood as { pieces: Piece[] }).pieces[0])}: ${res.status}, peak +${mb} MB`);
      expect(mb, grew.at(-1)).toBeLessThan((flood as { pieces: Piece[] }).pieces[0]?.kind === 'nameless' ? 40 : 32);
    }
    console.log(`fuzz-model floods: ${grew.join('; ')}`);
  }, 120_000);
});

describe('hostile model answers', () => {
  it(
    `${RUNS} seeded cases: no 500, only the documented statuses, bounded answers and steps (64 tool calls run, 128 listed), the lease released, bounded memory`,
    async () => {
      const before = workerdMemory();
      const statuses = new Map<string, number>();
      let maxSteps = 0;
      let maxReply = 0;
      let maxBytes = 0;
      await fc.assert(
        fc.asyncProperty(request, async (c) => {
          queue = [...c.answers];
          const res = await who.call(`/context/${seg('chat')}/reply`, {
            method: 'POST',
            json: { message: c.message },
            headers: c.stream ? { accept: 'text/event-stream' } : {},
          });
          const what = `case ${JSON.stringify(c).slice(0, 400)} -> ${res.status}: ${res.text.slice(0, 300)}`;
          maxBytes = Math.max(maxBytes, Buffer.byteLength(res.text));
          expect(Buffer.byteLength(res.text), what).toBeLessThan(MAX_ANSWER_BYTES);
          for (const leak of LEAKS) expect(res.text, what).not.toMatch(leak);
          let status = res.status;
          let body = res.body as { error?: { code: string }; reply?: { message: string } | null; steps?: unknown[] };
          if (c.stream) {
            expect(res.status, what).toBe(200);
            const events = parseSse(res.text);
            const last = events[events.length - 1];
            expect(['done', 'error'], what).toContain(last?.event);
            body = last?.data;
            status = last?.event === 'done' ? 200 : -1;
          }
          if (status === 200) {
            maxSteps = Math.max(maxSteps, body.steps?.length ?? 0);
            maxReply = Math.max(maxReply, body.reply?.message.length ?? 0);
            expect(body.steps?.length ?? 0, what).toBeLessThanOrEqual(128);
            expect(body.reply?.message.length ?? 0, what).toBeLessThanOrEqual(64 * 1024);
            statuses.set('200', (statuses.get('200') ?? 0) + 1);
          } else {
            const code = body.error?.code ?? 'none';
            statuses.set(code, (statuses.get(code) ?? 0) + 1);
            const allowed = Object.values(MODEL_FAULTS).flat();
            expect(allowed, what).toContain(code);
            if (!c.stream) expect(MODEL_FAULTS[status], what).toContain(code);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const after = workerdMemory();
      const growthMb = Math.round((after.peak - before.rss) / 1024);
      console.log(
        `fuzz-model figures: ${RUNS} cases (seed ${SEED}), ${modelCalls} model calls; answers ${[...statuses].map(([k, n]) => `${k}: ${n}`).join(', ')}; most steps ${maxSteps}, longest reply ${maxReply} chars, largest answer ${maxBytes} B; workerd resident ${Math.round(before.rss / 1024)} MB before, peak ${Math.round(after.peak / 1024)} MB (+${growthMb} MB)`,
      );
      expect(after.rss, 'no workerd process found').toBeGreaterThan(0);
      // Resident memory is a coarse gauge (V8 keeps what it grew into); the floods above are the
      // bound that matters. Here: nothing a hostile answer sends is held whole (hundreds of MB).
      expect(growthMb).toBeLessThan(512);
    },
    Math.max(180_000, RUNS * 4_000),
  );
});
