/**
 * Token counting for the request budget, conservative by design: no tokenizer ships
 * in the worker, so a text counts as ceil(UTF-8 bytes / 3) tokens (real tokenizers average 3.5 to
 * 4.5 bytes a token on English and code; 3 leaves room for other scripts), and each message adds
 * `MESSAGE_OVERHEAD_TOKENS` for its role and framing. The tools' schemas count as their JSON text.
 * A model message counts what the model reads of it: its texts and reasoning, each tool call's name
 * and arguments (as JSON), each tool result's text; a tool call or result adds the overhead again,
 * because providers send each result as a message of its own.
 */
import type { ModelMessage } from 'ai';

export const MESSAGE_OVERHEAD_TOKENS = 8;

/** What a cut text ends with, so the model knows it was cut. */
export const CUT_MARKER = '… (cut)';

const encoder = new TextEncoder();

/** Tokens a text counts for: ceil(UTF-8 bytes / 3). */
export function countTokens(text: string): number {
  return Math.ceil(encoder.encode(text).byteLength / 3);
}

/** Tokens a message counts for: its text plus the per-message overhead. */
export function messageTokens(text: string): number {
  return countTokens(text) + MESSAGE_OVERHEAD_TOKENS;
}

/** A tool as offered to the model: its name, description and input schema go with every request. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: unknown;
}

/** Tokens the tool definitions count for: their names, descriptions and schemas as JSON text (none without tools). */
export function toolsTokens(tools: readonly ToolDefinition[]): number {
  if (tools.length === 0) return 0;
  return countTokens(JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema])));
}

/** One part of a model message's content. */
export type MessagePart = Exclude<ModelMessage['content'], string>[number];

/** The text the model reads of a tool result's output. */
export function outputText(output: unknown): string {
  const o = output as { type?: unknown; value?: unknown } | undefined;
  if ((o?.type === 'text' || o?.type === 'error-text') && typeof o.value === 'string') return o.value;
  if (o?.type === 'json' || o?.type === 'error-json') return JSON.stringify(o.value ?? null);
  return JSON.stringify(output ?? null);
}

/** Tokens one part of a message counts for (without its message's overhead). */
export function partTokens(part: MessagePart): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return countTokens(part.text);
    case 'tool-call':
      return MESSAGE_OVERHEAD_TOKENS + countTokens(part.toolName) + countTokens(JSON.stringify(part.input ?? null));
    case 'tool-result':
      return MESSAGE_OVERHEAD_TOKENS + countTokens(outputText(part.output));
    default:
      return MESSAGE_OVERHEAD_TOKENS + countTokens(JSON.stringify(part));
  }
}

/** Tokens a model message counts for: the overhead and each of its parts. */
export function modelMessageTokens(message: ModelMessage): number {
  if (typeof message.content === 'string') return messageTokens(message.content);
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const part of message.content) tokens += partTokens(part);
  return tokens;
}

/**
 * `text` if it counts at most `tokens`; else its head with `CUT_MARKER`, counting at most `tokens`
 * (only the marker when no head fits; empty when not even the marker does). Cut on a code point.
 */
export function cutToTokens(text: string, tokens: number): string {
  const bytes = Math.max(0, tokens) * 3;
  if (text.length <= bytes / 3 || encoder.encode(text).byteLength <= bytes) return text;
  const room = bytes - encoder.encode(CUT_MARKER).byteLength;
  if (room < 0) return '';
  const { read } = encoder.encodeInto(text, new Uint8Array(room));
  return `${text.slice(0, read)}${CUT_MARKER}`;
}
