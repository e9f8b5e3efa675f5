import type { AgentClient, ContextSummary } from '../../client';
import { useLoad } from '../ui/load';
import { ErrorNotice } from '../ui/notice';

/**
 * What the agent's model wrote of the messages its replies had to leave out, with the
 * message ids it covers; the messages themselves are unchanged below. `hasSummary` is what the
 * messages' read said (undefined until it answered): the summary is asked only when there is one,
 * so a context without one costs no 404 for the console to log. `version` reads it again.
 */
export function Summary({
  agent,
  contextKey,
  version,
  hasSummary,
}: {
  agent: AgentClient;
  contextKey: string;
  version: number;
  hasSummary: boolean | undefined;
}) {
  const summary = useLoad(
    async (signal): Promise<ContextSummary | null | undefined> =>
      hasSummary === undefined ? undefined : hasSummary ? agent.readSummary(contextKey, { signal }) : null,
    [agent, contextKey, version, hasSummary],
  );
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
