import { useState } from 'hono/jsx/dom';
import type { AgentClient, Role } from '../../client';
import { MESSAGE_PROBLEM_TEXT, messageProblems, ROLES } from '../../contexts/rules';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';

/** Appends one message; the text is kept when the gateway refuses it, cleared once stored. */
export function AppendMessage({ agent, contextKey, onAppended }: { agent: AgentClient; contextKey: string; onAppended: () => void }) {
  const [role, setRole] = useState<Role>('user');
  const [text, setText] = useState('');
  const [shown, setShown] = useState(false);
  const call = useAction();
  const problems = messageProblems(text);
  const error = shown && problems.length > 0 ? `The message ${problems.map((p) => MESSAGE_PROBLEM_TEXT[p]).join('; ')}.` : undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    if (problems.length > 0) return;
    if (await call.run(async () => void (await agent.appendMessage(contextKey, { role, message: text })))) {
      setText('');
      setShown(false);
      onAppended();
    }
  };

  return (
    <form class="card" aria-labelledby="append-title" onSubmit={(e: Event) => void submit(e)} novalidate>
      <h2 id="append-title">Append a message</h2>
      <div class="field">
        <label for="append-role">Role</label>
        <select id="append-role" value={role} onChange={(e: Event) => setRole((e.target as HTMLSelectElement).value as Role)}>
          {ROLES.map((r) => (
            <option value={r} selected={r === role}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="append-text">Message</label>
        <textarea
          id="append-text"
          value={text}
          aria-invalid={error ? 'true' : undefined}
          onInput={(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
        />
        {error ? <small class="field-error">{error}</small> : null}
      </div>
      <button type="submit" disabled={call.busy}>
        Append
      </button>
      <ErrorNotice problem={call.problem} />
    </form>
  );
}
