/**
 * Entry of the /docs page script: loads the OpenAPI document named by `body[data-spec-url]`,
 * renders the sidebar (operations grouped by tag: method and summary), the search and every
 * operation. Hooks for tests: `body[data-state=loading|ready|error]`, `section[data-operation]`,
 * sidebar links `[data-nav]`. Serialized like dom.ts.
 */
import { byId, errorText, h, isObj, md, type Obj } from './dom';
import { collectOperations, matchesSearch, tagDescription, tagOrder, type Operation } from './operations';
import { methodBadge, renderOperation } from './render';
import { initCredentials, initTheme } from './credentials';

export function failPage(message: string): void {
  byId('status').replaceChildren(h('div', { class: 'error', role: 'alert' }, message));
  document.body.setAttribute('data-state', 'error');
}

/** The origin code samples address: the document's first absolute server, else this page's. */
export function sampleBaseUrl(spec: Obj): string {
  const first: unknown = Array.isArray(spec.servers) ? spec.servers[0] : undefined;
  const url = isObj(first) && typeof first.url === 'string' ? first.url : '';
  return /^https?:\/\//.test(url) ? url.replace(/\/+$/, '') : location.origin;
}

/**
 * Shows the operations matching the query, hides the rest (sidebar, sections, empty groups).
 * Returns the first match's id.
 */
export function applySearch(ops: Operation[], query: string): string | undefined {
  let shown = 0;
  let first: string | undefined;
  const tags = new Map<string, boolean>();
  for (const o of ops) {
    const hit = matchesSearch(o, query);
    if (hit) shown++;
    if (hit && first === undefined) first = o.id;
    tags.set(o.tag, (tags.get(o.tag) ?? false) || hit);
    const section = document.getElementById(o.id);
    const link = document.getElementById(`nav-${o.id}`);
    if (section) section.hidden = !hit;
    if (link) link.hidden = !hit;
  }
  for (const [tag, visible] of tags) {
    for (const id of ['nav-group-', 'group-']) {
      const el = document.getElementById(id + tag.replace(/[^A-Za-z0-9]+/g, '-'));
      if (el) el.hidden = !visible;
    }
  }
  byId('search-count').textContent = query.trim() === '' ? `${ops.length} operations` : `${shown} of ${ops.length} operations`;
  byId('no-match').hidden = shown > 0;
  return first;
}

/** Brings an operation into view, in the page and in the sidebar, and marks its link. */
export function revealOperation(id: string): void {
  for (const link of Array.from(document.querySelectorAll('aside a.current'))) link.classList.remove('current');
  const link = document.querySelector(`#nav-${id} a`);
  link?.classList.add('current');
  link?.scrollIntoView({ block: 'nearest' });
  document.getElementById(id)?.scrollIntoView({ block: 'start' });
}

export function initSearch(ops: Operation[]): void {
  const input = byId('search') as HTMLInputElement;
  // Typing scrolls to the first hit (the page may be far below it); Enter goes there again.
  input.addEventListener('input', () => {
    const first = applySearch(ops, input.value);
    if (first !== undefined && input.value.trim() !== '') revealOperation(first);
  });
  input.addEventListener('keydown', (e: Event) => {
    const key = (e as KeyboardEvent).key;
    if (key === 'Escape') {
      input.value = '';
      applySearch(ops, '');
    } else if (key === 'Enter') {
      const first = applySearch(ops, input.value);
      if (first !== undefined) revealOperation(first);
    }
  });
  document.addEventListener('keydown', (e: Event) => {
    const k = e as KeyboardEvent;
    const target = k.target as HTMLElement | null;
    const typing = target !== null && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName ?? '');
    if (k.key === '/' && !typing) {
      e.preventDefault();
      input.focus();
    }
  });
  applySearch(ops, input.value);
}

export async function docsMain(): Promise<void> {
  initTheme();
  const specUrl = document.body.getAttribute('data-spec-url') ?? '/openapi.json';
  let spec: Obj;
  try {
    const res = await fetch(specUrl, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const doc: unknown = await res.json();
    if (!isObj(doc) || !isObj(doc.paths)) throw new Error('document has no paths');
    spec = doc;
  } catch (e) {
    return failPage(`Could not load the API specification from ${specUrl}: ${errorText(e)}`);
  }
  try {
    const info = isObj(spec.info) ? spec.info : {};
    if (info.title) byId('title').textContent = String(info.title);
    byId('version').textContent = info.version ? `v${String(info.version)}` : '';
    byId('description').replaceChildren(h('span', {}, md(info.description ?? '')));
    initCredentials(spec);
    const ops = collectOperations(spec);
    const baseUrl = sampleBaseUrl(spec);
    const nav: HTMLElement[] = [];
    const sections: HTMLElement[] = [];
    for (const tag of tagOrder(spec, ops)) {
      const inTag = ops.filter((o) => o.tag === tag);
      const slug = tag.replace(/[^A-Za-z0-9]+/g, '-');
      nav.push(
        h(
          'div',
          { id: `nav-group-${slug}`, class: 'navgroup' },
          h('h2', {}, tag),
          h(
            'ul',
            {},
            inTag.map((o) =>
              h(
                'li',
                { id: `nav-${o.id}` },
                h(
                  'a',
                  {
                    href: `#${o.id}`,
                    'data-nav': `${o.method.toUpperCase()} ${o.path}`,
                    title: `${o.summary} (${o.method.toUpperCase()} ${o.path})`,
                  },
                  methodBadge(o.method),
                  h('span', { class: 'navsum' }, o.summary),
                ),
              ),
            ),
          ),
        ),
      );
      const description = tagDescription(spec, tag);
      sections.push(
        h(
          'div',
          { id: `group-${slug}`, class: 'group' },
          h('h2', { class: 'taghead', 'data-tag': tag }, tag),
          description ? h('p', { class: 'desc' }, md(description)) : null,
          inTag.map((o) => renderOperation(spec, o, baseUrl)),
        ),
      );
    }
    byId('nav').replaceChildren(...nav);
    byId('operations').replaceChildren(...sections);
    initSearch(ops);
    byId('status').replaceChildren();
    document.body.setAttribute('data-state', 'ready');
    if (location.hash.length > 1) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  } catch (e) {
    failPage(`Failed to render the API reference: ${errorText(e)}`);
  }
}
