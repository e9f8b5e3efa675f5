/**
 * Chat: the agent replies in a context (`#/chat/<key>`), streamed token by token through the
 * client's `replyStream`; tool calls and their results show as they happen, usage and finish
 * reason after. Stop aborts the stream: the gateway ends the reply, and the page stays usable.
 * A context opened (from the address, picked from the list, or the first one sent to) shows its
 * last messages first. Focus follows the reply: to Stop while it runs, back to the message box.
 */
import { useEffect, useRef, useState } from 'hono/jsx/dom';
import { type ContextMessage, GatewayError } from '../../client';
import { EarlierMessages } from '../chat/earlier';
import { TurnView, type Turn } from '../chat/turn';
import { isAbort, problemOf } from '../ui/errors';
import { Field } from '../ui/field';
import { ErrorNotice } from '../ui/notice';
import { useAction, useLoad } from '../ui/load';
import type { PageProps } from './page';

/** The earlier messages shown when a context opens; the Memory page has them all. */
const EARLIER = 20;
/** The contexts offered to pick (the first ones in key order); any other key can be typed. */
const PICKABLE = 100;

export function ChatPage({ agent, params, navigate }: PageProps) {
  const [contextKey, setContextKey] = useState(params[0] ?? '');
  const [text, setText] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [running, setRunning] = useState(false);
  /** The context shown, its last messages (oldest first), and whether the gateway has no such context. */
  const [opened, setOpened] = useState<{ key: string; earlier: ContextMessage[]; missing: boolean } | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);
  const nextId = useRef(1);
  const stopRef = useRef<HTMLButtonElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const wasRunning = useRef(false);
  const create = useAction();
  const open = useAction();
  const keys = useLoad((signal) => agent.listContextKeys({ elementsPerPage: PICKABLE }, { signal }), [agent]);

  const refresh = () => setTurns((all) => [...all]);

  /** Shows `key`'s last messages; false when the gateway has no such context (Create is offered). */
  const openContext = async (key: string): Promise<boolean> => {
    setTurns([]);
    create.clear();
    let found = true;
    await open.run(async () => {
      try {
        const page = await agent.readMessages(key, { order: 'desc', limit: EARLIER });
        setOpened({ key, earlier: [...page.messages].reverse(), missing: false });
      } catch (err) {
        if (!(err instanceof GatewayError && err.code === 'context_not_found')) throw err;
        found = false;
        setOpened({ key, earlier: [], missing: true });
      }
    });
    return found;
  };

  useEffect(() => {
    if (params[0]) void openContext(params[0]);
  }, [agent]);

  // While a reply runs, Send is disabled: focus goes to Stop, then back to the message box.
  useEffect(() => {
    if (running) stopRef.current?.focus();
    else if (wasRunning.current) textRef.current?.focus();
    wasRunning.current = running;
  }, [running]);

  const pick = (key: string) => {
    if (key === '') return;
    setContextKey(key);
    void openContext(key);
  };

  const send = async (e: Event) => {
    e.preventDefault();
    const key = contextKey.trim();
    const said = text;
    if (key === '' || said.trim() === '' || running) return;
    if (opened?.key !== key && !(await openContext(key))) return;
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
  const missing = (opened?.key === contextKey.trim() && opened.missing) || last?.problem?.code === 'context_not_found';
  const createIt = async () => {
    const key = contextKey.trim();
    if (await create.run(() => agent.createContext(key))) {
      setOpened({ key, earlier: [], missing: false });
      setTurns([]);
      keys.reload();
      textRef.current?.focus();
    }
  };
  const known = keys.data?.contextKeys ?? [];

  return (
    <div>
      <h1>Chat</h1>
      <section class="card transcript" aria-label="Conversation">
        {opened && opened.earlier.length > 0 ? <EarlierMessages contextKey={opened.key} messages={opened.earlier} /> : null}
        {turns.length === 0 && !(opened && opened.earlier.length > 0) ? (
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
            <p class="meta">There is no context {contextKey.trim()} yet.</p>
            <button type="button" disabled={create.busy} onClick={() => void createIt()}>
              Create context {contextKey.trim()}
            </button>
          </div>
        ) : null}
        <ErrorNotice problem={open.problem} />
        <ErrorNotice problem={create.problem} />
      </section>
      <form class="card" onSubmit={(e: Event) => void send(e)} aria-label="Send a message">
        {/* Always there (disabled while there is nothing to pick): a field that appears late would rebuild the ones after it. */}
        <div class="field">
          <label for="chat-pick">Open a context</label>
          <select id="chat-pick" disabled={known.length === 0} onChange={(e: Event) => pick((e.target as HTMLSelectElement).value)}>
            <option value="">
              {keys.data && known.length === 0 ? 'No contexts yet: type a key below' : "Pick one of the agent's contexts…"}
            </option>
            {known.map((k) => (
              <option value={k} selected={k === opened?.key}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <Field label="Context key" name="chat-context" value={contextKey} onInput={setContextKey} placeholder="customer:42/chat" />
        <div class="field">
          <label for="chat-text">Message</label>
          <textarea id="chat-text" ref={textRef} value={text} onInput={(e: Event) => setText((e.target as HTMLTextAreaElement).value)} />
        </div>
        <div class="pager">
          <button type="submit" class="primary" disabled={running || open.busy || contextKey.trim() === '' || text.trim() === ''}>
            Send
          </button>
          <button type="button" ref={stopRef} disabled={!running} onClick={() => controller.current?.abort()}>
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
