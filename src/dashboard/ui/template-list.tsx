/**
 * The agent's prompt templates on the templates page (`GET …/prompt-templates` through
 * `listPromptTemplates`): keys in byte order with description, length and last change (never the
 * texts), 50 a page with More; a key opens the template. Reloads when `version` changes (a save).
 */
import { useState } from 'hono/jsx/dom';
import type { AgentClient, PromptTemplateSummary } from '../../client';
import { count, when } from './format';
import { useLoad } from './load';
import { ErrorNotice } from './notice';

export function TemplateList({ agent, version, onOpen }: { agent: AgentClient; version: number; onOpen: (key: string) => void }) {
  const [more, setMore] = useState<{ templates: PromptTemplateSummary[]; nextCursor: string | null } | undefined>(undefined);
  const first = useLoad(
    async (signal) => {
      setMore(undefined);
      return agent.listPromptTemplates({ limit: 50 }, { signal });
    },
    [agent, version],
  );
  const [loadingMore, setLoadingMore] = useState(false);
  const templates = [...(first.data?.templates ?? []), ...(more?.templates ?? [])];
  const next = more ? more.nextCursor : (first.data?.nextCursor ?? null);
  const loadMore = async () => {
    if (next === null) return;
    setLoadingMore(true);
    try {
      const page = await agent.listPromptTemplates({ limit: 50, cursor: next });
      setMore((m) => ({ templates: [...(m?.templates ?? []), ...page.templates], nextCursor: page.nextCursor }));
    } finally {
      setLoadingMore(false);
    }
  };
  if (first.data && templates.length === 0) return <p class="muted">No templates yet: open a key below to write one.</p>;
  return (
    <>
      <ErrorNotice problem={first.problem} />
      <ul class="list" aria-label="Templates">
        {templates.map((t) => (
          <li key={t.key}>
            <button type="button" class="link mono" onClick={() => onOpen(t.key)}>
              {t.key}
            </button>{' '}
            <span class="meta">
              {t.description ?? ''} · {count(t.characters)} characters · saved {when(t.updatedAt)}
            </span>
          </li>
        ))}
      </ul>
      {next !== null ? (
        <div class="pager">
          <button type="button" disabled={loadingMore} onClick={() => void loadMore()}>
            More
          </button>
        </div>
      ) : null}
    </>
  );
}
