/**
 * Where focus goes when what it was on goes away (a new view, a removed row, a disabled button):
 * to a heading, made focusable by script only (tabindex -1), so that a keyboard or screen-reader
 * user goes on from the place the page changed instead of from the top of <body>.
 */
export function focusHeading(heading: Element | null | undefined): boolean {
  if (!(heading instanceof HTMLElement)) return false;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
  return document.activeElement === heading;
}

/**
 * The main heading of the view (`main h1`), once it is rendered (tried again on the next frames);
 * not when the user is already typing in the new view (focus in one of its fields).
 */
export function focusMainHeading(tries = 10): void {
  if (document.activeElement?.matches('main input, main textarea, main select')) return;
  if (focusHeading(document.querySelector('main h1'))) return;
  if (tries > 0) requestAnimationFrame(() => focusMainHeading(tries - 1));
}

/** The heading of the section `inside` is in (the list a removed row was in, say). */
export function focusSectionHeading(inside: Element | null | undefined): boolean {
  return focusHeading(inside?.closest('section')?.querySelector('h1, h2'));
}
