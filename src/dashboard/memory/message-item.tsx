/** One message: its role, id, time and text (kept as written, wrapped). */
export function MessageItem(props: { role: string; id: number; createdAt: string; message: string }) {
  return (
    <article class="message-item">
      <span class={`role role-${props.role}`}>{props.role}</span>{' '}
      <span class="muted">
        #{props.id} · <time datetime={props.createdAt}>{new Date(props.createdAt).toLocaleString()}</time>
      </span>
      <p class="message">{props.message}</p>
    </article>
  );
}
