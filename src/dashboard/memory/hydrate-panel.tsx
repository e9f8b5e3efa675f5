import { useRef, useState } from 'hono/jsx/dom';
import type { AgentClient } from '../../client';
import { problemOf } from '../ui/errors';
import { ErrorNotice, Status } from '../ui/notice';
import { useAction } from '../ui/load';
import { type HydrateOutcome, type HydrateProgress, type ReadFile, readHydrateFile, storedBatches, uploadPlan } from './hydrate';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the chosen file holds, and whether an earlier upload of it stored some batches. */
function describeFile(file: ReadFile, earlierBatches: number): string {
  const parts = [
    `${file.name}: ${plural(file.parsed.records.length, 'message')} for ${plural(file.plan.keys.length, 'context')} in ${plural(file.plan.batchCount, 'batch', 'batches')}`,
  ];
  if (file.parsed.invalid.length > 0)
    parts.push(`${plural(file.parsed.invalid.length, 'line')} invalid (listed after the upload, never sent)`);
  if (earlierBatches > 0)
    parts.push(`${plural(earlierBatches, 'batch', 'batches')} stored by an earlier upload: Upload goes on from there`);
  return parts.join('; ');
}

/**
 * Hydrate from a JSONL file (`{"key","role","message"}` a line), as `agent-gateway hydrate` does:
 * checked here first, sent in idempotent batches with a progress bar; Stop, then the same file
 * again, goes on where it stopped; the lines not stored are listed with their code.
 */
export function HydratePanel({ agent, onDone }: { agent: AgentClient; onDone: () => void }) {
  const [file, setFile] = useState<ReadFile | undefined>(undefined);
  const [createMissing, setCreateMissing] = useState(true);
  const [progress, setProgress] = useState<HydrateProgress | undefined>(undefined);
  const [outcome, setOutcome] = useState<HydrateOutcome | undefined>(undefined);
  const [running, setRunning] = useState(false);
  const controller = useRef<AbortController | null>(null);
  const call = useAction();

  const choose = async (e: Event) => {
    const chosen = (e.target as HTMLInputElement).files?.[0];
    setOutcome(undefined);
    setProgress(undefined);
    if (!chosen) return setFile(undefined);
    await call.run(async () => setFile(await readHydrateFile(chosen)));
  };

  const upload = async () => {
    if (!file) return;
    const abort = new AbortController();
    controller.current = abort;
    setRunning(true);
    setOutcome(undefined);
    try {
      const result = await uploadPlan(agent, file, { createMissing, signal: abort.signal, onProgress: setProgress });
      setOutcome(result);
      onDone();
    } catch (err) {
      call.setProblem(problemOf(err));
    } finally {
      setRunning(false);
      controller.current = null;
    }
  };

  const earlier = file ? storedBatches(agent, file.plan.fileId).size : 0;
  const summary = file ? describeFile(file, running || outcome !== undefined ? 0 : earlier) : undefined;

  return (
    <section class="card" aria-labelledby="hydrate-title">
      <h2 id="hydrate-title">Hydrate from a JSONL file</h2>
      <div class="field">
        <label for="hydrate-file">JSONL file</label>
        <input
          id="hydrate-file"
          type="file"
          accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson"
          disabled={running}
          onChange={(e: Event) => void choose(e)}
        />
        <small class="muted">One JSON object a line: {'{"key": "customer:42/notes", "role": "user", "message": "…"}'}</small>
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={createMissing}
          disabled={running}
          onChange={(e: Event) => setCreateMissing((e.target as HTMLInputElement).checked)}
        />{' '}
        Create missing contexts
      </label>
      <Status text={summary} />
      <div class="pager">
        <button type="button" class="primary" disabled={!file || running || file.plan.totalMessages === 0} onClick={() => void upload()}>
          Upload
        </button>
        <button type="button" disabled={!running} onClick={() => controller.current?.abort()}>
          Stop
        </button>
      </div>
      {progress ? (
        <div class="field">
          <label for="hydrate-progress">Progress</label>
          <progress id="hydrate-progress" max={Math.max(1, progress.total)} value={progress.sent + progress.replayed + progress.resumed} />
          <p class="meta" role="status">
            {progress.done} of {progress.total} messages done: {progress.sent} stored, {progress.replayed} already there (replayed),{' '}
            {progress.resumed} stored by an earlier upload, {progress.failed} failed
          </p>
        </div>
      ) : null}
      {outcome?.stopped ? <p class="notice warn">Upload ended early: {outcome.stopped}</p> : null}
      {outcome && outcome.failures.length > 0 ? (
        <div class="failed">
          <h3>Lines not stored ({outcome.failures.length})</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Code</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {outcome.failures.map((f) => (
                <tr>
                  <td>{f.line}</td>
                  <td>
                    <code class="code">{f.code}</code>
                  </td>
                  <td>{f.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {outcome && !outcome.stopped && outcome.failures.length === 0 ? <p class="notice">Every line is stored.</p> : null}
      <ErrorNotice problem={call.problem} />
    </section>
  );
}
