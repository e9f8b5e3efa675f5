import type { PageProps } from './page';

/** Contexts: list, search, create; a context's messages, append, hydrate. */
export function MemoryPage(_props: PageProps) {
  return (
    <section class="card">
      <h1>Memory</h1>
    </section>
  );
}
