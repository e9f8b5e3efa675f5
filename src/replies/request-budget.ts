/**
 * Every model request of a reply fits TOKEN__MAX_TOKENS_PER_REQUEST as counted: the
 * system prompt, the tool definitions, the messages (the context's and the tool calls and results
 * of the reply's earlier steps) and the output allowance. What does not fit is cut from what the
 * model reads, never from what is stored, each only when the one before is not enough:
 * 1. the context's older messages, dropped from the oldest;
 * 2. the earlier steps' results (and their texts and reasoning), cut from the oldest;
 * 3. the newest message, cut;
 * 4. the earlier steps, dropped whole (a call with its result) from the oldest.
 * The output allowance is the settings' `maxTokens`, lowered for a request whose messages need the
 * room, down to half of what the fixed part leaves (`maxTokens` may be the whole limit). A fixed
 * part that leaves less than `MIN_ROOM_TOKENS` is refused before anything is stored (400
 * `prompt_over_token_limit`). The context's summary, when there is one, is part of the
 * fixed part: sent after the system prompt in every request, cut to a quarter of what the system
 * prompt and the tools leave (`withSummary`).
 */
import type { ModelMessage } from 'ai';
import { AppError } from '../errors';
import { summaryMessage } from './summary-prompt';
import {
  countTokens,
  CUT_MARKER,
  cutToTokens,
  MESSAGE_OVERHEAD_TOKENS,
  type MessagePart,
  messageTokens,
  modelMessageTokens,
  outputText,
  partTokens,
  type ToolDefinition,
  toolsTokens,
} from './tokens';

/** What every model request of a reply is fitted into. */
export interface RequestBudget {
  /** TOKEN__MAX_TOKENS_PER_REQUEST. */
  limit: number;
  /** The system prompt and the tool definitions, sent with every request. */
  fixed: number;
  /** The settings' `maxTokens`: lowered for a request whose messages need the room, down to half of `limit - fixed`. */
  maxOutputTokens: number;
  /** The context's summary as sent (a system message of its own, first of every request's messages); counted in `fixed`. */
  summary?: string;
}

/** A message of the context, as the model reads it. */
export interface TextMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** One model request's messages and output allowance. */
export interface FittedRequest {
  messages: ModelMessage[];
  maxOutputTokens: number;
}

/** The least a message is cut to: its overhead and the cut marker. */
export const MIN_MESSAGE_TOKENS = MESSAGE_OVERHEAD_TOKENS + countTokens(CUT_MARKER);

/** The least the system prompt and the tools must leave of the limit: half for the messages, half for the answer. */
export const MIN_ROOM_TOKENS = 32;

/** The budget of a reply's requests; 400 `prompt_over_token_limit` when the system prompt and the tools leave less than `MIN_ROOM_TOKENS`. */
export function requestBudget(limit: number, system: string | null, tools: readonly ToolDefinition[], maxTokens: number): RequestBudget {
  const fixed = (system !== null ? messageTokens(system) : 0) + toolsTokens(tools);
  if (limit - fixed < MIN_ROOM_TOKENS) {
    throw new AppError(
      'prompt_over_token_limit',
      `The system prompt and the tool definitions count ${fixed} tokens, leaving under ${MIN_ROOM_TOKENS} of TOKEN__MAX_TOKENS_PER_REQUEST (${limit}) for the messages and the answer`,
      { details: { fixedTokens: fixed, limit } },
    );
  }
  return { limit, fixed, maxOutputTokens: maxTokens };
}

/**
 * `budget` with the context's summary sent after the system prompt in every request:
 * under its header, cut to a quarter of what the system prompt and the tools leave; not sent when
 * not even its cut marker fits there.
 */
export function withSummary(budget: RequestBudget, summary: string | null): RequestBudget {
  if (summary === null) return budget;
  const most = Math.floor((budget.limit - budget.fixed) / 4);
  if (most < MIN_MESSAGE_TOKENS) return budget;
  const text = cutToTokens(summaryMessage(summary), most - MESSAGE_OVERHEAD_TOKENS);
  return { ...budget, fixed: budget.fixed + messageTokens(text), summary: text };
}

/**
 * The messages and output allowance of one request: the summary (if any), then `history` (oldest
 * first), then `earlier` (the reply's earlier steps).
 */
export function fitRequest(budget: RequestBudget, history: readonly TextMessage[], earlier: readonly ModelMessage[]): FittedRequest {
  const left = budget.limit - budget.fixed;
  const needed = tokensOf(history) + tokensOf(earlier);
  const maxOutputTokens = Math.max(0, Math.min(budget.maxOutputTokens, Math.max(left - needed, Math.floor(left / 2))));
  const summary: ModelMessage[] = budget.summary === undefined ? [] : [{ role: 'system', content: budget.summary }];
  const messages = fitMessages(history, earlier, left - maxOutputTokens);
  if (messages) return { messages: [...summary, ...messages], maxOutputTokens };
  // Only for a budget requestBudget would have refused: the newest message cut to its marker, the answer the rest.
  const newest = history.at(-1);
  const least = newest ? [cutMessage(newest, MIN_MESSAGE_TOKENS)] : [];
  return { messages: [...summary, ...least], maxOutputTokens: left - tokensOf(least) };
}

/** How many of `history`'s oldest messages the first request of a reply leaves out (what a summary takes in). */
export function leftOutCount(budget: RequestBudget, history: readonly TextMessage[]): number {
  const sent = fitRequest(budget, history, []).messages.length - (budget.summary === undefined ? 0 : 1);
  return Math.max(0, history.length - sent);
}

const tokensOf = (messages: readonly ModelMessage[]) => messages.reduce((sum, m) => sum + modelMessageTokens(m), 0);

function fitMessages(history: readonly TextMessage[], earlier: readonly ModelMessage[], room: number): ModelMessage[] | undefined {
  const newest = history.at(-1);
  const newestTokens = newest ? modelMessageTokens(newest) : 0;
  let used = newestTokens + tokensOf(earlier);
  if (used <= room) {
    let first = history.length - 1;
    while (first > 0 && used + modelMessageTokens(history[first - 1]!) <= room) used += modelMessageTokens(history[--first]!);
    return [...history.slice(Math.max(first, 0)), ...earlier];
  }
  const steps = stepsOf(earlier);
  for (let drop = 0; drop <= steps.length; drop++) {
    const kept = steps.slice(drop).flat();
    const cut = cutOldestFirst(kept, room - newestTokens);
    if (cut) return newest ? [newest, ...cut] : cut;
    const least = cutOldestFirst(kept, Number.NEGATIVE_INFINITY, true) ?? kept;
    const left = room - tokensOf(least);
    if (newest ? left >= MIN_MESSAGE_TOKENS : left >= 0) return newest ? [cutMessage(newest, left), ...least] : least;
  }
  return undefined;
}

/** The earlier steps: each model answer (assistant message) with the tool results that follow it. */
function stepsOf(earlier: readonly ModelMessage[]): ModelMessage[][] {
  const steps: ModelMessage[][] = [];
  for (const m of earlier) {
    const last = steps.at(-1);
    if (m.role === 'assistant' || !last) steps.push([m]);
    else last.push(m);
  }
  return steps;
}

function cutMessage(message: TextMessage, tokens: number): TextMessage {
  return { ...message, content: cutToTokens(message.content, tokens - MESSAGE_OVERHEAD_TOKENS) };
}

/**
 * `messages` with their texts, reasoning and tool results cut from the oldest until they count at
 * most `target`; undefined when cutting all of them to their marker is not enough (with `least`,
 * all of them cut to their marker).
 */
function cutOldestFirst(messages: readonly ModelMessage[], target: number, least = false): ModelMessage[] | undefined {
  let excess = tokensOf(messages) - target;
  if (excess <= 0) return [...messages];
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (excess <= 0 || typeof message.content === 'string') {
      out.push(message);
      continue;
    }
    const parts = message.content.map((part) => {
      if (excess <= 0) return part;
      const cut = cutPart(part, partTokens(part) - excess);
      excess -= partTokens(part) - partTokens(cut);
      return cut;
    });
    out.push({ ...message, content: parts } as ModelMessage);
  }
  return excess <= 0 || least ? out : undefined;
}

/** `part` with its text cut so the part counts at most `tokens` (not below its marker). */
function cutPart(part: MessagePart, tokens: number): MessagePart {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { ...part, text: cutToTokens(part.text, Math.max(tokens, countTokens(CUT_MARKER))) };
    case 'tool-result': {
      const whole = outputText(part.output);
      const text = cutToTokens(whole, Math.max(tokens - MESSAGE_OVERHEAD_TOKENS, countTokens(CUT_MARKER)));
      if (text === whole) return part;
      const type = part.output.type === 'error-text' || part.output.type === 'error-json' ? 'error-text' : 'text';
      return { ...part, output: { type, value: text } };
    }
    default:
      return part;
  }
}
