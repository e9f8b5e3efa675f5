/**
 * Chat: the agent replies in a context (`#/chat/<key>`), streamed token by token through the
 * client's `replyStream`; tool calls and their results show as they happen, usage and finish
 * reason after. Stop aborts the stream: the gateway ends the reply, and the page stays usable.
 */
import { useRef, useState } from 'hono/jsx/dom';
import { TurnView, type Turn } from '../chat/turn';
import { isAbort, problemOf } from '../ui/errors';
import { Field } from '../ui/field';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';
import type { PageProps } from './page';

export function ChatPage({ agent, params, navigate }: PageProps) {
  const [contextKey, setContextKey] = useState(params[0] ?? '');
  const [text, setText] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [running, setRunning] = useState(false);
  const controller = useRef<AbortController | null>(null);
  const nextId = useRef(1);
  const create = useAction();

  const refresh = () => setTurns((all) => [...all]);

  const send = async (e: Event) => {
    e.preventDefault();
    const key = contextKey.trim();
    const said = text;
    if (key === '' || said.trim() === '' || running) return;
    const turn: Turn = { id: nextId.current++, said, text: '', tools: [], state: 'streaming' };
    setTurns((all) => [...all, turn]);
    const abort = new AbortController();
    controller.current = abort;
    setRunning(true);
    try {
      const stream = await agent.replyStream(key, { message: said }, { signal: abort.signal });
      setText('');
      for await (const event of stream) {
        if (event.event === 'delta') turn.text += event.data.text;
        else if (event.event === 'tool_call') turn.tools.push({ ...event.data });
        else if (event.event === 'tool_result') {
          const call = [...turn.tools].reverse().find((t) => t.tool === event.data.tool && !t.result);
          const result = {
            isError: event.data.isError,
            durationMs: event.data.durationMs,
            content: event.data.content,
            upstreamStatus: event.data.upstreamStatus,
          };
          if (call) call.result = result;
          else turn.tools.push({ tool: event.data.tool, connectionId: event.data.connectionId, arguments: undefined, result });
        } else if (event.event === 'done') {
          turn.done = event.data;
          if (!turn.text && event.data.reply) turn.text = event.data.reply.message;
          turn.state = 'done';
        } else if (event.event === 'error') {
          turn.problem = { code: event.data.error.code, message: event.data.error.message, requestId: event.data.requestId };
          turn.state = 'failed';
        }
        refresh();
      }
    } catch (err) {
      if (abort.signal.aborted && isAbort(err)) turn.state = 'stopped';
      else if (abort.signal.aborted) turn.state = 'stopped';
      else {
        turn.problem = problemOf(err);
        turn.state = 'failed';
      }
    } finally {
      if (turn.state === 'streaming') turn.state = abort.signal.aborted ? 'stopped' : 'done';
      controller.current = null;
      setRunning(false);
      refresh();
    }
  };

  const last = turns[turns.length - 1];
  const missing = last?.problem?.code === 'context_not_found';

  return (
    <div>
      <h1>Chat</h1>
      <section class="card transcript" aria-label="Conversation">
        {turns.length === 0 ? (
          <p class="muted">
            The agent answers with its model, prompt template, memory and tool servers; each exchange is stored in the context. Ask it to
            “use tool memory_search …” to see a tool call.
          </p>
        ) : null}
        {turns.map((turn) => (
          <TurnView turn={turn} />
        ))}
        {missing ? (
          <div class="pager">
            <button type="button" disabled={create.busy} onClick={() => void create.run(() => agent.createContext(contextKey.trim()))}>
              Create context {contextKey.trim()}
            </button>
          </div>
        ) : null}
        <ErrorNotice problem={create.problem} />
      </section>
      <form class="card" onSubmit={(e: Event) => void send(e)} aria-label="Send a message">
        <Field label="Context key" name="chat-context" value={contextKey} onInput={setContextKey} placeholder="customer:42/chat" />
        <div class="field">
          <label for="chat-text">Message</label>
          <textarea id="chat-text" value={text} onInput={(e: Event) => setText((e.target as HTMLTextAreaElement).value)} />
        </div>
        <div class="pager">
          <button type="submit" class="primary" disabled={running || contextKey.trim() === '' || text.trim() === ''}>
            Send
          </button>
          <button type="button" disabled={!running} onClick={() => controller.current?.abort()}>
            Stop
          </button>
          {contextKey.trim() ? (
            <button type="button" onClick={() => navigate('memory', contextKey.trim())}>
              Open the context's messages
            </button>
          ) : null}
        </div>
      </form>
    </div>
  );
}
