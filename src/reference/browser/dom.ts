/**
 * DOM helpers of the /docs page script. Browser code: every function here is serialized with
 * `Function.prototype.toString()` into the page (src/reference/script.ts), so a function may use only
 * its parameters, browser globals and the other serialized functions (no module-level values).
 */

export type Obj = Record<string, unknown>;
export type Child = Node | string | number | null | undefined | false | Child[];

export function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An element with attributes (null/undefined/false skipped) and children; text always as text nodes. */
export function h(tag: string, attrs: Record<string, string | number | boolean | null | undefined>, ...kids: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  }
  appendKids(el, kids);
  return el;
}

export function appendKids(el: HTMLElement, kids: Child[]): void {
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    if (Array.isArray(kid)) appendKids(el, kid);
    else el.append(typeof kid === 'object' ? kid : document.createTextNode(String(kid)));
  }
}

/** A value as short text: strings as they are, anything else as JSON. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Description text with `code` spans as <code> elements (built from text nodes, never HTML). */
export function md(text: unknown): Child[] {
  return String(text ?? '')
    .split('\u0060')
    .map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part));
}

/** A path that may wrap after each slash, never inside a segment. */
export function pathText(path: string): Child[] {
  return path.split('/').flatMap((part, i): Child[] => (i === 0 ? [part] : [h('wbr', {}), `/${part}`]));
}

export function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page element #${id} is missing`);
  return el;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A titled code block with a copy button; the copy never reports failure to the console. */
export function codeBlock(label: string, text: string, attrs: Record<string, string>): HTMLElement {
  const pre = h('pre', { tabindex: '0', 'aria-label': label }, h('code', {}, text));
  const copy = h('button', { type: 'button', class: 'copy secondary', 'aria-label': `Copy ${label}` }, 'Copy');
  copy.addEventListener('click', () => {
    const done = (word: string) => {
      copy.textContent = word;
      setTimeout(() => {
        copy.textContent = 'Copy';
      }, 1500);
    };
    const clip = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    if (!clip) return done('Select and copy');
    clip.writeText(text).then(
      () => done('Copied'),
      () => done('Select and copy'),
    );
  });
  return h('div', Object.assign({ class: 'code' }, attrs), h('div', { class: 'codebar' }, h('span', {}, label), copy), pre);
}
