/**
 * Helpers of the reply tests: a worker whose fetches to `https://llm.tools.example` reach the
 * stand-in model and to `https://<name>.tools.example` the test tool servers (production's
 * outbound policy stays on), an agent with a context and LLM settings on it, and SSE parsing.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StandinLlm, StandinReply, StandinRequest } from '../../scripts/lib/standin-llm';
import { freshAgent, seg, type TestAgent } from './agent';
import type { JsonResponse } from './http';
import type { DeploymentInfo, StackInfo } from './stack-info';
import { workerWithToolServers } from './tool-routing';

export const LLM_BASE_URL = 'https://llm.tools.example/v1';

export async function replyWorker(
  stack: StackInfo,
  llm: StandinLlm,
  tools: Record<string, string>,
  bindings: Record<string, string> = {},
  output: Parameters<typeof workerWithToolServers>[3] = {},
) {
  const worker = await workerWithToolServers(stack, { llm: llm.origin, ...tools }, { LLM_TIMEOUT_MS: '1500', ...bindings }, output);
  const deployment: DeploymentInfo = { ...stack.testnet, baseUrl: worker.url };
  return { ...worker, deployment };
}

/** LLM settings on the stand-in model (its base URL, which test workers send to the stand-in), with `extra` over them. */
export const standinSettings = (extra: Record<string, unknown> = {}) => ({
  provider: 'openai-compatible',
  model: 'stand-in',
  temperature: 0,
  maxTokens: 256,
  baseUrl: LLM_BASE_URL,
  ...extra,
});

/** A fresh agent with the context `chat` and LLM settings on the stand-in (key `apiKey`). */
export async function replyAgent(
  deployment: DeploymentInfo,
  apiKey: string,
  settings: Record<string, unknown> = {},
): Promise<TestAgent & { reply(json: unknown, init?: { headers?: Record<string, string> }): Promise<JsonResponse<any>> }> {
  const agent = await freshAgent(deployment);
  const [ctx, llm] = await Promise.all([
    agent.call('/context', { method: 'POST', json: { key: 'chat' } }),
    agent.call('/llm/settings', { method: 'POST', json: standinSettings({ apiKey, ...settings }) }),
  ]);
  if (ctx.status !== 200 || llm.status !== 200) throw new Error(`setup failed: ${ctx.text} ${llm.text}`);
  return {
    ...agent,
    reply: (json, init = {}) => agent.call(`/context/${seg('chat')}/reply`, { method: 'POST', json, headers: init.headers }),
  };
}

/** What a test case makes the stand-in answer (undefined: its default). */
export type CaseScript = (req: StandinRequest) => StandinReply | undefined;

/**
 * Scripted cases for one stand-in: `scripted(script)` gives a marker (`[case:<id>]`) to put in a
 * message, and `script`, the stand-in's `script` option, runs that case's script for every
 * request whose conversation carries the marker (with `lastMessageOnly`, its newest message only,
 * so an earlier case in the memory does not count).
 */
export function scriptedCases(options: { lastMessageOnly?: boolean } = {}) {
  const scripts = new Map<string, CaseScript>();
  return {
    script(req: StandinRequest): StandinReply | undefined {
      const seen = options.lastMessageOnly ? req.body.messages?.at(-1) : req.body.messages;
      const id = /\[case:([0-9a-f-]{36})\]/.exec(JSON.stringify(seen))?.[1];
      return id ? scripts.get(id)?.(req) : undefined;
    },
    scripted(script: CaseScript): string {
      const id = crypto.randomUUID();
      scripts.set(id, script);
      return `[case:${id}]`;
    },
  };
}

/** Server-sent events of a body: name and parsed data, in order. */
export function parseSse(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

export type ToolMode = 'good' | '401' | '424' | '500';

/**
 * A plain JSON-RPC tool server with `echo` (text), whose failure mode a test switches after
 * registration; `extra` adds fields to the tool (`title`, `annotations`...). It counts calls and
 * keeps the Authorization header of the last request it received.
 */
export async function startSwitchableTools(extra: Record<string, unknown> = {}) {
  const state = { mode: 'good' as ToolMode, calls: 0, authorizations: [] as (string | undefined)[] };
  const tools = [
    {
      name: 'echo',
      description: 'Echoes the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      ...extra,
    },
  ];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.authorizations.push(req.headers.authorization);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: any };
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (body.method === 'tools/list') return send(200, { jsonrpc: '2.0', id: body.id, result: { tools } });
      if (body.method === 'tools/call') {
        state.calls++;
        if (state.mode !== 'good') return send(Number(state.mode), { error: `failing with ${state.mode}` });
        return send(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: { content: [{ type: 'text', text: `echo: ${body.params?.arguments?.text}` }] },
        });
      }
      return send(200, { jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
