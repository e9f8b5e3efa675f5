import type { ReplyAnswer } from '../../client';
import type { Problem } from '../ui/errors';
import { ErrorNotice } from '../ui/notice';
import { ScrollRegion } from '../ui/scroll-region';

/** A tool call as the stream told it: its arguments, then its result. */
export interface ToolEvent {
  tool: string;
  connectionId: string | null;
  arguments: unknown;
  result?: { isError: boolean; durationMs: number; content?: string | undefined; upstreamStatus?: number | undefined };
}

/** One exchange: what was said, the reply as it streams, its tool calls, how it ended. */
export interface Turn {
  id: number;
  said: string;
  text: string;
  tools: ToolEvent[];
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  done?: Pick<ReplyAnswer, 'usage' | 'finishReason' | 'reply'>;
  problem?: Problem;
}

const json = (value: unknown) => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
};

export function TurnView({ turn }: { turn: Turn }) {
  return (
    <div class="turn">
      <div class="bubble user">
        <span class="role role-user">user</span>
        <p class="message">{turn.said}</p>
      </div>
      {turn.tools.map((t) => (
        <div class="tool" data-tool={t.tool}>
          <strong>Tool call: {t.tool}</strong>
          <span class="muted"> {t.connectionId ? `connection ${t.connectionId}` : 'built in'}</span>
          <ScrollRegion class="tool-box" label={`Arguments of ${t.tool}`}>
            <pre>{json(t.arguments)}</pre>
          </ScrollRegion>
          {t.result ? (
            <div class="tool-result">
              <strong>{t.result.isError ? 'Tool failed' : 'Tool result'}</strong>
              <span class="muted">
                {' '}
                {t.result.durationMs} ms{t.result.upstreamStatus ? ` · HTTP ${t.result.upstreamStatus}` : ''}
              </span>
              {t.result.content !== undefined ? (
                <ScrollRegion class="tool-box" label={`Result of ${t.tool}`}>
                  <pre>{t.result.content}</pre>
                </ScrollRegion>
              ) : null}
            </div>
          ) : (
            <p class="muted">running…</p>
          )}
        </div>
      ))}
      {/* A reply that failed or was stopped before its first word has no bubble: the error or the stop says it in words. */}
      {turn.text || turn.state === 'streaming' || turn.state === 'done' ? (
        <div class="bubble assistant" aria-live="polite" aria-busy={turn.state === 'streaming' ? 'true' : 'false'}>
          <span class="role role-assistant">assistant</span>
          <p class="message reply-text">{turn.text || (turn.state === 'streaming' ? '…' : '(no text)')}</p>
        </div>
      ) : null}
      {turn.done ? (
        <p class="meta reply-meta">
          Finished: {turn.done.finishReason} · {turn.done.usage.inputTokens} input tokens, {turn.done.usage.outputTokens} output tokens
          {turn.done.reply ? ` · stored as #${turn.done.reply.id}` : ''}
        </p>
      ) : null}
      {turn.state === 'stopped' ? <p class="meta reply-meta">Stopped: the reply was ended before it finished.</p> : null}
      {turn.problem ? <ErrorNotice problem={turn.problem} /> : null}
    </div>
  );
}
