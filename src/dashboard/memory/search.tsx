import { useState } from 'hono/jsx/dom';
import type { AgentClient, MemorySearchHit } from '../../client';
import { Field } from '../ui/field';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';
import { MessageItem } from './message-item';

/**
 * Search across the agent's contexts with the query language of docs/memory.md (words, "quoted
 * phrases", `or`, `-word`; identifiers and misspellings too), best first, 20 at a time.
 */
export function MemorySearch({ agent, open }: { agent: AgentClient; open: (key: string) => void }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<MemorySearchHit[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [searched, setSearched] = useState('');
  const call = useAction();

  const search = async (e: Event) => {
    e.preventDefault();
    const q = query.trim();
    if (q === '') return;
    await call.run(async () => {
      const page = await agent.search({ query: q, limit: 20 });
      setSearched(q);
      setHits(page.hits);
      setNext(page.nextCursor);
    });
  };
  const more = () =>
    call.run(async () => {
      if (!next) return;
      const page = await agent.search({ query: searched, limit: 20, cursor: next });
      setHits([...(hits ?? []), ...page.hits]);
      setNext(page.nextCursor);
    });

  return (
    <section class="card" aria-labelledby="search-title">
      <h2 id="search-title">Search memory</h2>
      <form onSubmit={(e: Event) => void search(e)}>
        <div class="row">
          <div class="grow">
            <Field label="Query" name="search" value={query} onInput={setQuery} placeholder={'invoice "next week" or refund -cancelled'} />
          </div>
          <button type="submit" disabled={call.busy}>
            Search
          </button>
        </div>
        <small class="muted">Words, "quoted phrases", or, -word to exclude; identifiers such as INV-2024-0042 match too.</small>
      </form>
      {hits !== undefined ? (
        <div aria-live="polite">
          <p class="muted">{hits.length === 0 ? 'No message matches.' : `${hits.length}${next ? '+' : ''} hits, best first`}</p>
          <ul class="list">
            {hits.map((hit) => (
              <li>
                <button type="button" class="link mono" onClick={() => open(hit.contextKey)}>
                  {hit.contextKey}
                </button>
                <MessageItem role={hit.role} id={hit.id} createdAt={hit.createdAt} message={hit.message} />
              </li>
            ))}
          </ul>
          {next ? (
            <div class="pager">
              <button type="button" disabled={call.busy} onClick={() => void more()}>
                More results
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      <ErrorNotice problem={call.problem} />
    </section>
  );
}
