import { useEffect, useState } from 'hono/jsx/dom';
import type { AgentClient, ContextKeyPage } from '../../client';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';

const PER_PAGE = 20;

/** The agent's context keys, a page at a time by keyset cursor (Previous goes back along the cursors seen). */
export function ContextsList({ agent, open }: { agent: AgentClient; open: (key: string) => void }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<ContextKeyPage | undefined>(undefined);
  const call = useAction();
  const after = cursors[cursors.length - 1];

  useEffect(() => {
    void call.run(async () => setPage(await agent.listContextKeys({ elementsPerPage: PER_PAGE, after })));
  }, [agent, after]);

  return (
    <section class="card" aria-labelledby="contexts-title">
      <h2 id="contexts-title">Contexts{page ? <span class="muted"> ({page.totalElements})</span> : null}</h2>
      {page && page.contextKeys.length === 0 ? <p class="muted">No contexts yet: create one, or hydrate a JSONL file.</p> : null}
      <ul class="list" aria-busy={call.busy ? 'true' : 'false'}>
        {(page?.contextKeys ?? []).map((key) => (
          <li>
            <button type="button" class="link mono" onClick={() => open(key)}>
              {key}
            </button>
          </li>
        ))}
      </ul>
      <div class="pager">
        <button type="button" disabled={call.busy || cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <button
          type="button"
          disabled={call.busy || !page?.nextAfter}
          onClick={() => page?.nextAfter && setCursors([...cursors, page.nextAfter])}
        >
          Next
        </button>
      </div>
      <ErrorNotice problem={call.problem} />
    </section>
  );
}
