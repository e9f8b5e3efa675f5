import type { ContextMessage } from '../../client';

/** The context's last messages before this visit, oldest first, as the transcript's bubbles. */
export function EarlierMessages({ contextKey, messages }: { contextKey: string; messages: ContextMessage[] }) {
  return (
    <section class="earlier" aria-label={`Earlier messages of ${contextKey}`}>
      <p class="meta">
        The last {messages.length === 1 ? 'message' : `${messages.length} messages`} of {contextKey}, oldest first:
      </p>
      {messages.map((m) => (
        <div class={`bubble ${m.role === 'user' ? 'user' : 'assistant'} earlier-message`} data-id={m.id}>
          <span class={`role role-${m.role}`}>{m.role}</span>{' '}
          <span class="muted">
            #{m.id} · <time datetime={m.createdAt}>{new Date(m.createdAt).toLocaleString()}</time>
          </span>
          <p class="message">{m.message}</p>
        </div>
      ))}
    </section>
  );
}
