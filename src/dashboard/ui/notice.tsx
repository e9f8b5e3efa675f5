import type { Problem } from './errors';

/** An error in words with its code (and request id), announced to screen readers. */
export function ErrorNotice({ problem }: { problem: Problem | undefined }) {
  if (!problem) return null;
  return (
    <p class="notice error" role="alert">
      {problem.message} <code class="code">{problem.code}</code>
      {problem.requestId ? <span class="muted"> request {problem.requestId}</span> : null}
    </p>
  );
}

/** A short status line (polite live region). */
export function Status({ text }: { text: string | undefined }) {
  return (
    <p class="notice status" role="status" aria-live="polite">
      {text ?? ''}
    </p>
  );
}
