/**
 * A box that may scroll (a wide table, a tool's long result): a named region (a section with a
 * name) that takes keyboard focus,
 * so that a keyboard user can reach it and scroll it with the arrow keys (WCAG 2.1.1).
 */
export function ScrollRegion({ label, class: className, children }: { label: string; class: string; children?: unknown }) {
  return (
    <section class={className} aria-label={label} tabindex={0}>
      {children}
    </section>
  );
}
