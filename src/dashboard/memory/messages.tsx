import { useEffect, useState } from 'hono/jsx/dom';
import type { AgentClient, ContextMessage } from '../../client';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';
import { MessageItem } from './message-item';

const PER_PAGE = 20;

/**
 * A context's messages, newest first, 20 at a time ("Older messages" reads on). `version` reloads
 * from the newest; each first page tells `onSummary` whether the context has a summary (`hasSummary`).
 */
export function Messages({
  agent,
  contextKey,
  version,
  onSummary,
}: {
  agent: AgentClient;
  contextKey: string;
  version: number;
  onSummary?: (hasSummary: boolean) => void;
}) {
  const [messages, setMessages] = useState<ContextMessage[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const call = useAction();

  useEffect(() => {
    setLoaded(false);
    void call.run(async () => {
      const page = await agent.readMessages(contextKey, { order: 'desc', limit: PER_PAGE });
      setMessages(page.messages);
      setNext(page.nextCursor);
      setLoaded(true);
      onSummary?.(page.hasSummary);
    });
  }, [agent, contextKey, version]);

  const older = () =>
    call.run(async () => {
      if (!next) return;
      const page = await agent.readMessages(contextKey, { order: 'desc', limit: PER_PAGE, cursor: next });
      setMessages([...messages, ...page.messages]);
      setNext(page.nextCursor);
    });

  return (
    <section class="card" aria-labelledby="messages-title">
      <h2 id="messages-title">Messages, newest first</h2>
      {loaded && messages.length === 0 ? <p class="muted">No messages yet.</p> : null}
      <ol class="list" aria-busy={call.busy ? 'true' : 'false'}>
        {messages.map((m) => (
          <li>
            <MessageItem role={m.role} id={m.id} createdAt={m.createdAt} message={m.message} />
          </li>
        ))}
      </ol>
      {next ? (
        <div class="pager">
          <button type="button" disabled={call.busy} onClick={() => void older()}>
            Older messages
          </button>
        </div>
      ) : null}
      <ErrorNotice problem={call.problem} />
    </section>
  );
}
