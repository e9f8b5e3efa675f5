import { useState } from 'hono/jsx/dom';
import { type Problem, problemOf } from './errors';

/**
 * A call from a button or form: `busy` while it runs, `problem` when it failed (cleared by the
 * next run). The form's own values are the caller's state, untouched here: nothing typed is lost.
 */
export function useCall() {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
      return true;
    } catch (err) {
      setProblem(problemOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run, setProblem };
}
