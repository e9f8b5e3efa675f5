/**
 * The stand-in model: a scripted OpenAI-compatible Chat Completions server on loopback for the
 * local stack and the tests. Deterministic, no weights: it says it is a stand-in in
 * every answer. Self-contained (node:http only) so the dev stack, tests and benchmarks start the
 * same module (and the gateway's summary words, a file without imports).
 *
 *   const llm = await startStandinLlm();            // llm.baseUrl = http://127.0.0.1:PORT/v1
 *   // LLM settings: { provider: 'openai-compatible', model: 'stand-in', baseUrl: llm.baseUrl }
 *
 * `POST /v1/chat/completions`, streaming (`stream: true`, SSE chunks ending with `[DONE]`, usage
 * when `stream_options.include_usage`) and not; `GET /v1/models`. Default behaviour:
 * - the last message is a tool result: answers `stand-in model: <tool> answered: <result text>`;
 * - tools are offered and the last user message says `use tool <name>` (or names the first tool):
 *   calls that tool, with arguments built from its JSON schema (its required properties, or every
 *   property when none is required; strings take the text after the tool's name in the message,
 *   or `stand-in`; numbers 1; booleans true; enums their first value);
 * - a summary request (its system message is the gateway's SUMMARY_INSTRUCTION,
 *   src/replies/summary-prompt.ts): `stand-in summary: ` then the summary so far (its text after
 *   that prefix), then `#<id> <first four words>…` of each message to add, joined by ` / `;
 * - otherwise: `stand-in model: you said: <last user message>`.
 * `script` overrides any request: return a reply (text, tool calls, an HTTP status for a fault, a
 * delay for a timeout) or `undefined` for the default. With `apiKey`, requests without
 * `Authorization: Bearer <apiKey>` get 401 as a provider would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MESSAGES_TO_ADD, SUMMARY_INSTRUCTION, SUMMARY_SO_FAR } from '../../src/replies/summary-prompt';

export interface StandinMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface StandinTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonSchema };
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[] };

/** A request as the stand-in received it. */
export interface StandinRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model?: string;
    messages?: StandinMessage[];
    tools?: StandinTool[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    max_tokens?: number;
    max_completion_tokens?: number;
    [key: string]: unknown;
  };
}

/** Token counts a script reports instead of the stand-in's own estimate (`cachedTokens` as `prompt_tokens_details.cached_tokens`). */
export interface StandinUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/**
 * What a script answers: a text (after `reasoning`, streamed as `reasoning_content`), tool calls,
 * or a raw HTTP fault; each may come after a delay. With `chunkChars`, reasoning and tool-call
 * arguments stream in deltas of that many characters (else one delta each). With `usage`, the
 * answer reports exactly those token counts.
 */
export type StandinReply =
  | {
      text: string;
      reasoning?: string;
      finishReason?: 'stop' | 'length' | 'content_filter';
      chunkChars?: number;
      chunkDelayMs?: number;
      delayMs?: number;
      usage?: StandinUsage;
    }
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[]; chunkChars?: number; delayMs?: number; usage?: StandinUsage }
  | { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number };

export type StandinScript = (request: StandinRequest) => StandinReply | undefined | Promise<StandinReply | undefined>;

export interface StandinLlm {
  /** `http://127.0.0.1:PORT/v1`: the `baseUrl` of openai-compatible LLM settings. */
  baseUrl: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** Every request received, in order (chat completions and others). */
  requests: StandinRequest[];
  /** Chat completion requests received so far. */
  completions(): StandinRequest[];
  close(): Promise<void>;
}

export interface StandinOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  script?: StandinScript;
  /** When set, a request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Pause between streamed chunks (default 0). */
  chunkDelayMs?: number;
}

export const STANDIN_PREFIX = 'stand-in model:';

/** The text of a message's content. */
export function contentText(content: StandinMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

function sampleValue(schema: JsonSchema | undefined, text: string): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return sampleArguments(schema, text);
    case 'null':
      return null;
    default:
      return text;
  }
}

/**
 * Arguments for a tool, built from its JSON schema, strings from `text`: the required properties
 * (every property when the schema requires none), as a model leaves out what it need not say.
 */
export function sampleArguments(schema: JsonSchema | undefined, text: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const required = schema?.required?.length ? new Set(schema.required) : null;
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (!required || required.has(name)) args[name] = sampleValue(property, text);
  }
  return args;
}

export const STANDIN_SUMMARY_PREFIX = 'stand-in summary:';

/** Whether a request is the gateway's summary request (its system message is SUMMARY_INSTRUCTION). */
export function isSummaryRequest(body: StandinRequest['body']): boolean {
  return (body.messages ?? []).some((m) => m.role === 'system' && contentText(m.content) === SUMMARY_INSTRUCTION);
}

/** The stand-in's summary: the summary so far, then the first words of each message to add (see the module comment). */
export function summaryReply(body: StandinRequest['body']): string {
  const transcript = contentText(body.messages?.findLast((m) => m.role === 'user')?.content);
  const at = transcript.indexOf(MESSAGES_TO_ADD);
  const sofar = transcript.startsWith(SUMMARY_SO_FAR) ? transcript.slice(SUMMARY_SO_FAR.length, at).trim() : '';
  const entries = transcript.slice(at + MESSAGES_TO_ADD.length).split(/\n\n(?=#\d+ (?:user|assistant|system): )/);
  const parts = entries.flatMap((entry) => {
    const m = /^\s*#(\d+) (?:user|assistant|system): ([\s\S]*)$/.exec(entry);
    return m ? [`#${m[1]} ${m[2]!.trim().split(/\s+/).slice(0, 4).join(' ')}…`] : [];
  });
  const earlier = sofar.startsWith(STANDIN_SUMMARY_PREFIX) ? sofar.slice(STANDIN_SUMMARY_PREFIX.length).trim() : sofar;
  return `${STANDIN_SUMMARY_PREFIX} ${[...(earlier ? [earlier] : []), ...parts].join(' / ')}`;
}

/** The default behaviour (see the module comment). */
export function defaultReply(body: StandinRequest['body']): StandinReply {
  if (isSummaryRequest(body)) return { text: summaryReply(body) };
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') {
    const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
    return { text: `${STANDIN_PREFIX} ${call?.function.name ?? 'the tool'} answered: ${contentText(last.content)}` };
  }
  const said = contentText([...messages].reverse().find((m) => m.role === 'user')?.content);
  const tools = body.tools ?? [];
  if (last?.role === 'user' && tools.length > 0) {
    const asked = /use tool ([A-Za-z0-9_-]{1,64})/.exec(said)?.[1];
    const tool = tools.find((t) => t.function.name === asked) ?? (said.includes(tools[0]!.function.name) ? tools[0] : undefined);
    if (tool) {
      const name = tool.function.name;
      const after = said.slice(said.indexOf(name) + name.length).trim() || 'stand-in';
      return { toolCalls: [{ name, arguments: sampleArguments(tool.function.parameters, after) }] };
    }
  }
  return { text: `${STANDIN_PREFIX} you said: ${said}` };
}

/** Rough token counts for `usage`: four characters a token. */
const tokens = (text: string) => Math.ceil(text.length / 4);

function usageOf(body: StandinRequest['body'], output: string, given?: StandinUsage) {
  if (given) {
    return {
      prompt_tokens: given.promptTokens,
      completion_tokens: given.completionTokens,
      total_tokens: given.promptTokens + given.completionTokens,
      ...(given.cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: given.cachedTokens } }),
    };
  }
  const prompt = tokens(JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? []));
  const completion = tokens(output);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Splits text into stream deltas: a word (with its following space) each. */
const pieces = (text: string) => text.match(/\S+\s*|\s+/g) ?? [''];

/** Splits text into deltas of `size` characters (one delta without a size). */
const slices = (text: string, size: number | undefined) =>
  size ? Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size)) : [text];

export async function startStandinLlm(options: StandinOptions = {}): Promise<StandinLlm> {
  const requests: StandinRequest[] = [];
  let counter = 0;

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: StandinRequest['body'] = {};
    try {
      body = raw ? (JSON.parse(raw) as StandinRequest['body']) : {};
    } catch {
      return sendJson(res, 400, { error: { message: 'invalid JSON', type: 'invalid_request_error' } });
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const request: StandinRequest = { method: req.method ?? '', path, headers: req.headers, body };
    requests.push(request);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: 'Incorrect API key provided (stand-in)', type: 'invalid_request_error' } });
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      return sendJson(res, 200, { object: 'list', data: [{ id: 'stand-in', object: 'model', owned_by: 'agent-gateway' }] });
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path} (stand-in)` } });
    }
    const reply = (await options.script?.(request)) ?? defaultReply(body);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `stand-in fault ${reply.status}` } }));
      return;
    }
    const id = `chatcmpl-standin-${++counter}`;
    const model = body.model ?? 'stand-in';
    const created = Math.floor(Date.now() / 1000);
    const toolCalls =
      'toolCalls' in reply
        ? reply.toolCalls.map((call, i) => ({
            id: `call_standin_${counter}_${i}`,
            type: 'function' as const,
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          }))
        : undefined;
    const text = 'text' in reply ? reply.text : '';
    const reasoning = 'text' in reply ? (reply.reasoning ?? '') : '';
    const finish = toolCalls ? 'tool_calls' : 'text' in reply ? (reply.finishReason ?? 'stop') : 'stop';
    const usage = usageOf(body, text + JSON.stringify(toolCalls ?? []), 'status' in reply ? undefined : reply.usage);
    if (!body.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: toolCalls ? null : text,
              ...(reasoning ? { reasoning_content: reasoning } : {}),
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (const piece of reasoning ? slices(reasoning, reply.chunkChars) : []) {
      if (res.destroyed) return;
      res.write(chunk({ reasoning_content: piece }));
    }
    if (toolCalls) {
      for (const [index, call] of toolCalls.entries()) {
        res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
        for (const piece of slices(call.function.arguments, reply.chunkChars)) {
          if (res.destroyed) return;
          res.write(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
      }
    } else {
      // A reply's own chunkDelayMs overrides the server's (one slow answer among quick ones).
      const pause = ('text' in reply ? reply.chunkDelayMs : undefined) ?? options.chunkDelayMs;
      for (const piece of pieces(text)) {
        if (pause) await sleep(pause);
        if (res.destroyed) return;
        res.write(chunk({ content: piece }));
      }
    }
    res.write(chunk({}, finish));
    if (body.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `stand-in failed: ${String(err)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    port,
    requests,
    completions: () => requests.filter((r) => r.path.endsWith('/chat/completions')),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
