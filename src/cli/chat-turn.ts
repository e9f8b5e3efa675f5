/**
 * One turn of `agent-gateway chat`: sends the message with `replyStream` and shows the events as
 * they arrive: the agent's text on stdout as it is written, each tool call and its result on
 * stderr (`→ tool word_count {"text":"…"}`, `← word_count 12 ms ok`); with `--json` the answer
 * as one JSON line instead of the text. Resolves with the answer; a failure (refused, or an `error` event) throws
 * a GatewayError naming its code.
 */
import { randomUUID } from 'node:crypto';
import type { AgentClient } from '../client/client';
import { GatewayError } from '../client/errors';
import type { ReplyAnswer, ReplyEvent, ReplyRequest } from '../client/types';
import { scrubRegistered, type Io } from './output';
import { withRetry } from './retry';

export interface TurnOptions {
  key: string;
  request: ReplyRequest;
  /** The answer as one JSON line on stdout instead of the text. */
  json: boolean;
  /** Printed before the agent's text (the interactive prompt's counterpart). */
  label?: string;
  signal?: AbortSignal;
}

const ARGUMENTS_SHOWN = 200;

/** `{"text":"one two"}`, cut to 200 characters. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > ARGUMENTS_SHOWN ? `${text.slice(0, ARGUMENTS_SHOWN - 1)}…` : text;
}

/** The line shown for a tool event, or undefined for the other events. */
export function toolLine(event: ReplyEvent): string | undefined {
  if (event.event === 'tool_call') return `→ tool ${event.data.tool} ${shortJson(event.data.arguments)}`;
  if (event.event !== 'tool_result') return undefined;
  const { tool, durationMs, isError, upstreamStatus } = event.data;
  const outcome = isError ? `error${upstreamStatus === undefined ? '' : ` (upstream ${upstreamStatus})`}` : 'ok';
  return `← ${tool} ${durationMs} ms ${outcome}`;
}

/** The error body of an `error` event as the GatewayError a refused request would have been. */
function streamedError(event: Extract<ReplyEvent, { event: 'error' }>, operation: string): GatewayError {
  const { error, requestId } = event.data;
  return new GatewayError({ status: 0, code: error.code, message: error.message, details: error.details, requestId, operation });
}

/**
 * Runs one reply. The request carries a fresh Idempotency-Key, so a refusal worth retrying (429,
 * 502, 503, 504, no answer) is retried up to twice with the same key: the model never runs twice.
 */
export async function runTurn(agent: AgentClient, io: Io, options: TurnOptions): Promise<ReplyAnswer> {
  const idempotencyKey = randomUUID();
  const stream = await withRetry(() => agent.replyStream(options.key, options.request, { idempotencyKey, signal: options.signal }), {
    attempts: 3,
    onRetry: (err, attempt, delayMs) =>
      io.err(`chat: ${err.status} ${err.code}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s (same Idempotency-Key)`),
  });
  let wroteText = false;
  let shownText = false;
  const writeText = (text: string) => {
    if (!wroteText && options.label) io.stdout.write(options.label);
    wroteText = shownText = true;
    io.stdout.write(scrubRegistered(text, false));
  };
  const endText = () => {
    if (wroteText) io.stdout.write('\n');
    wroteText = false;
  };
  try {
    for await (const event of stream) {
      if (options.json) {
        if (event.event === 'done') io.out(JSON.stringify(event.data));
        const line = toolLine(event);
        if (line) io.err(line);
      } else if (event.event === 'delta') {
        writeText(event.data.text);
      } else if (event.event === 'done' && !shownText && event.data.reply) {
        writeText(event.data.reply.message); // a replayed answer comes as a single done
      } else {
        const line = toolLine(event);
        if (line) {
          endText();
          io.err(line);
        }
      }
      if (event.event === 'error') throw streamedError(event, `POST ${agent.path}/context/…/reply`);
      if (event.event === 'done') return event.data;
    }
  } finally {
    endText();
  }
  // replyStream ends with done or error, or throws: not reached.
  throw new GatewayError({ status: 200, code: 'invalid_response', message: 'the reply stream ended without an answer' });
}
