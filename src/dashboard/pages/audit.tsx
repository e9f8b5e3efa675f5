/**
 * The audit trail: administrative changes and tool calls, newest first, a page at a
 * time (Older follows the answer's cursor; Newer goes back the way it came).
 */
import { useState } from 'hono/jsx/dom';
import type { AuditActor, AuditTarget } from '../../client';
import { when } from '../ui/format';
import { useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { ScrollRegion } from '../ui/scroll-region';
import type { PageProps } from './page';
import '../settings.css';

const PAGE_SIZE = 25;

const actorOf = (actor: AuditActor) => ('wallet' in actor ? `wallet ${actor.wallet}` : `key ${actor.keyId}`);

/** The target's fields as `name value` pairs (names, ids; never a secret: the gateway stores none). */
const targetOf = (target: AuditTarget) =>
  Object.entries(target)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');

export function AuditPage({ agent, walletAddress }: PageProps) {
  // The cursors of the pages opened so far: the last is the page shown (undefined: the newest).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    (signal) => agent.listAuditEntries({ limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }, { signal }),
    [agent, cursor],
  );
  const entries = page.data?.entries ?? [];
  const next = page.data?.nextCursor ?? null;
  return (
    <section class="card" aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p class="muted">Changes to the agent's settings, tools and keys, and tool calls: newest first.</p>
      {page.loading ? <Status text="Loading the audit trail…" /> : null}
      <ErrorNotice problem={page.problem} />
      <ScrollRegion class="table-wrap" label="Audit entries">
        <table class="entries" aria-label="Audit entries">
          <thead>
            <tr>
              <th>Time</th>
              <th>Actor</th>
              <th>Action</th>
              <th>Target</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {page.data && entries.length === 0 ? (
              <tr>
                <td colspan={5} class="muted">
                  Nothing recorded yet.
                </td>
              </tr>
            ) : null}
            {entries.map((e) => (
              <tr>
                <td data-label="Time">{when(e.at)}</td>
                <td data-label="Actor" class="mono wrap">
                  <span>
                    {actorOf(e.actor)}
                    {'wallet' in e.actor && e.actor.wallet === walletAddress.toLowerCase() ? <span class="muted"> (you)</span> : null}
                  </span>
                </td>
                <td data-label="Action">
                  <code class="code">{e.action}</code>
                </td>
                <td data-label="Target" class="mono wrap">
                  {targetOf(e.target)}
                </td>
                <td data-label="Outcome" class={e.outcome === 'ok' ? 'outcome ok' : 'outcome failed'}>
                  {e.outcome}
                  {e.durationMs === undefined ? '' : ` · ${e.durationMs} ms`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <div class="pager">
        <button type="button" disabled={cursors.length === 1 || page.loading} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={next === null || page.loading} onClick={() => setCursors((c) => [...c, next ?? undefined])}>
          Older
        </button>
        <button type="button" disabled={page.loading} onClick={() => (cursors.length === 1 ? page.reload() : setCursors([undefined]))}>
          Newest
        </button>
      </div>
    </section>
  );
}
