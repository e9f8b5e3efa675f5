import { type AgentClient, type ContextSummary, GatewayError } from '../../client';
import { useLoad } from '../ui/load';
import { ErrorNotice } from '../ui/notice';

/** The context's summary, or null when it has none (404 `summary_not_found`). */
async function readSummary(agent: AgentClient, contextKey: string, signal: AbortSignal): Promise<ContextSummary | null> {
  try {
    return await agent.readSummary(contextKey, { signal });
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'summary_not_found') return null;
    throw err;
  }
}

/**
 * What the agent's model wrote of the messages its replies had to leave out, with the
 * message ids it covers; the messages themselves are unchanged below. `version` reads it again.
 */
export function Summary({ agent, contextKey, version }: { agent: AgentClient; contextKey: string; version: number }) {
  const summary = useLoad((signal) => readSummary(agent, contextKey, signal), [agent, contextKey, version]);
  const s = summary.data;
  return (
    <section class="card" aria-labelledby="summary-title" aria-busy={summary.loading ? 'true' : 'false'}>
      <h2 id="summary-title">{s ? `Summary of messages #${s.fromId}–#${s.toId}` : 'Summary'}</h2>
      {s === null ? (
        <p class="muted">
          None yet. When a reply has to leave this context's older messages out, the agent's model summarises them just after it, and the
          next reply reads the summary first.
        </p>
      ) : null}
      {s ? (
        <article class="message-item">
          <span class="muted">
            written <time datetime={s.createdAt}>{new Date(s.createdAt).toLocaleString()}</time> · the messages stay as they are
          </span>
          <p class="message">{s.summary}</p>
        </article>
      ) : null}
      <ErrorNotice problem={summary.problem} />
    </section>
  );
}
