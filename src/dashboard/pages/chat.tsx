import type { PageProps } from './page';

/** A context's reply streamed, tool calls shown, Stop. */
export function ChatPage(_props: PageProps) {
  return (
    <section class="card">
      <h1>Chat</h1>
    </section>
  );
}
