import { useState } from 'hono/jsx/dom';
import type { AgentClient } from '../../client';
import { KEY_PROBLEM_TEXT, keyProblem } from '../../contexts/rules';
import { Field } from '../ui/field';
import { ErrorNotice } from '../ui/notice';
import { useAction } from '../ui/load';

/** Creates a context; the key is checked with the gateway's own rules first. */
export function CreateContext({ agent, onCreated }: { agent: AgentClient; onCreated: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [shown, setShown] = useState(false);
  const call = useAction();
  const problem = keyProblem(key.trim());
  const error = shown && problem ? `The key ${KEY_PROBLEM_TEXT[problem]}.` : undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    if (problem) return;
    const created = key.trim();
    if (await call.run(() => agent.createContext(created))) onCreated(created);
  };

  return (
    <form class="card" aria-labelledby="create-title" onSubmit={(e: Event) => void submit(e)} novalidate>
      <h2 id="create-title">New context</h2>
      <div class="row">
        <div class="grow">
          <Field label="Context key" name="new-context" value={key} onInput={setKey} placeholder="customer:42/notes" error={error} />
        </div>
        <button type="submit" disabled={call.busy}>
          Create
        </button>
      </div>
      <ErrorNotice problem={call.problem} />
    </form>
  );
}
