/**
 * The floors of `bench:reply`: the same stand-in model and the same tool server, called directly
 * from this process. The model is streamed with the client's own SSE parser (src/client/sse.ts),
 * so both sides read the stream the same way.
 */
import { sseEvents } from '../../../src/client/sse';
import { now } from '../lib';

export interface ModelTiming {
  /** ms to the first chunk with text. */
  firstDelta: number;
  /** ms to `[DONE]`. */
  whole: number;
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}

interface Chunk {
  choices?: {
    delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] };
  }[];
}

export type ChatMessage = Record<string, unknown>;

/** One streamed Chat Completions request, as the gateway's provider sends it. */
export async function streamModel(baseUrl: string, messages: ChatMessage[], tools?: unknown[]): Promise<ModelTiming> {
  const t0 = now();
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'stand-in',
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(tools ? { tools } : {}),
    }),
  });
  if (res.status !== 200 || !res.body) throw new Error(`the stand-in answered ${res.status}`);
  let firstDelta = Number.NaN;
  let text = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const event of sseEvents(res.body)) {
    if (event.data === '[DONE]') break;
    const delta = (JSON.parse(event.data) as Chunk).choices?.[0]?.delta;
    if (delta?.content) {
      if (Number.isNaN(firstDelta)) firstDelta = now() - t0;
      text += delta.content;
    }
    for (const call of delta?.tool_calls ?? []) {
      calls[call.index] ??= { id: '', name: '', arguments: '' };
      const slot = calls[call.index]!;
      slot.id ||= call.id ?? '';
      slot.name ||= call.function?.name ?? '';
      slot.arguments += call.function?.arguments ?? '';
    }
  }
  return { firstDelta, whole: now() - t0, text, toolCalls: calls };
}

/** One JSON-RPC request to the tool server, as the gateway sends it; returns ms and the result. */
export async function toolRpc(url: string, apiKey: string, method: string, params: unknown): Promise<{ ms: number; result: unknown }> {
  const t0 = now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (res.status !== 200 || body.result === undefined) throw new Error(`the tool server answered ${res.status} to ${method}`);
  return { ms: now() - t0, result: body.result };
}

/** The tool list as the model gets it (Chat Completions `tools`). */
export function asModelTools(result: unknown): unknown[] {
  const tools = (result as { tools?: { name: string; description?: string; inputSchema?: unknown }[] }).tools ?? [];
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
}

/**
 * A reply with one tool call done directly: list the tools, the model asks for the tool, the tool
 * server answers, the model answers with the result. Returns each part's ms and the whole.
 */
export async function directToolReply(llmUrl: string, toolUrl: string, apiKey: string, message: string) {
  const t0 = now();
  const listed = await toolRpc(toolUrl, apiKey, 'tools/list', {});
  const tools = asModelTools(listed.result);
  const messages: ChatMessage[] = [{ role: 'user', content: message }];
  const first = await streamModel(llmUrl, messages, tools);
  const call = first.toolCalls[0];
  if (!call) throw new Error('the stand-in did not call the tool');
  const called = await toolRpc(toolUrl, apiKey, 'tools/call', { name: call.name, arguments: JSON.parse(call.arguments) as unknown });
  const content = (called.result as { content?: { text?: string }[] }).content?.map((c) => c.text ?? '').join('') ?? '';
  messages.push(
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
    },
    { role: 'tool', tool_call_id: call.id, content },
  );
  const second = await streamModel(llmUrl, messages, tools);
  return { whole: now() - t0, list: listed.ms, call: called.ms, text: second.text };
}
