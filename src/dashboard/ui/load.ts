import { useEffect, useState } from 'hono/jsx/dom';
import { GatewayError, type ValidationIssues } from '../../client';
import { isAbort, type Problem, problemOf } from './errors';

/** `problemOf`, with a `validation_failed` answer's issues spelled out (`temperature: Number must be …`). */
export function describe(err: unknown): Problem {
  const problem = problemOf(err);
  const issues = err instanceof GatewayError ? (err.details as Partial<ValidationIssues> | undefined)?.issues : undefined;
  if (!Array.isArray(issues) || issues.length === 0) return problem;
  const said = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return { ...problem, message: `${problem.message}: ${said}` };
}

/** What `useLoad` holds: the last answer, the last failure (in words, with its code), and whether a load runs. */
export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | undefined;
  loading: boolean;
  /** Loads again (after a change); the answer shown stays until the new one arrives. */
  reload: () => void;
}

/**
 * Loads `load()` when the page opens and whenever `deps` change or `reload` is called; a load the
 * page left behind (closed, or superseded) is aborted and its answer dropped.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    load(controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        setData(answer);
        setProblem(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (controller.signal.aborted || isAbort(err)) return;
        setProblem(describe(err));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [...deps, round]);
  return { data, problem, loading, reload: () => setRound((r) => r + 1) };
}

/**
 * A call from a button or form (save, add, remove, load a page), one at a time, with its failure
 * kept in words: `run(fn)` is false when it failed, true when it went through. The form's values
 * are the caller's state, untouched here: nothing typed is lost.
 */
export function useAction(): {
  busy: boolean;
  problem: Problem | undefined;
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
  /** Shows a failure found outside `run` (a file the page could not read, say). */
  setProblem: (problem: Problem | undefined) => void;
} {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await fn();
      return true;
    } catch (err) {
      setProblem(describe(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run, clear: () => setProblem(undefined), setProblem };
}
