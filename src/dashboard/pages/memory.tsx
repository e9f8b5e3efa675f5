/**
 * Memory: the agent's contexts (list, search, create, hydrate from a JSONL file) at `#/memory`;
 * one context's summary of what replies left out and its messages (newest first, append) at
 * `#/memory/<key>`.
 */
import { useState } from 'hono/jsx/dom';
import { AppendMessage } from '../memory/append';
import { ContextsList } from '../memory/contexts-list';
import { CreateContext } from '../memory/create-context';
import { HydratePanel } from '../memory/hydrate-panel';
import { Messages } from '../memory/messages';
import { MemorySearch } from '../memory/search';
import { Summary } from '../memory/summary';
import type { PageProps } from './page';

export function MemoryPage({ agent, params, navigate }: PageProps) {
  const [version, setVersion] = useState(0);
  // Whether the open context has a summary, as its messages' read said; undefined until it answered for this key.
  const [summarised, setSummarised] = useState<{ key: string; has: boolean } | undefined>(undefined);
  const key = params[0];
  const open = (k: string) => navigate('memory', k);
  const hasSummary = summarised && summarised.key === key ? summarised.has : undefined;
  if (key === undefined) {
    return (
      <div>
        <h1>Memory</h1>
        <MemorySearch agent={agent} open={open} />
        <ContextsList key={`list-${version}`} agent={agent} open={open} />
        <CreateContext agent={agent} onCreated={open} />
        <HydratePanel agent={agent} onDone={() => setVersion(version + 1)} />
      </div>
    );
  }
  return (
    <div>
      <p>
        <a href="#/memory">← All contexts</a>
      </p>
      <h1 class="mono">{key}</h1>
      <div class="pager">
        <button type="button" onClick={() => navigate('chat', key)}>
          Chat in this context
        </button>
      </div>
      <AppendMessage agent={agent} contextKey={key} onAppended={() => setVersion(version + 1)} />
      <Summary agent={agent} contextKey={key} version={version} hasSummary={hasSummary} />
      <Messages agent={agent} contextKey={key} version={version} onSummary={(has) => setSummarised({ key, has })} />
    </div>
  );
}
