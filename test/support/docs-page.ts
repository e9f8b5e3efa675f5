/**
 * The /docs page for unit tests: bundled exactly as wrangler bundles the worker (esbuild,
 * keepNames), so the serialized browser functions are what production serves; and a tiny DOM
 * stub to run its script in node:vm.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';
import type { ReferencePage } from '../../src/reference/reference-page';

type PageFn = (options: { specUrl: string; title: string }) => Promise<ReferencePage>;

/** `referencePage` from a bundle built like wrangler's (one build per test file). */
export async function bundledReferencePage(): Promise<PageFn> {
  const out = await build({
    entryPoints: [path.join(import.meta.dirname, '../../src/reference/reference-page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    keepNames: true,
    write: false,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'docs-page-'));
  try {
    const file = path.join(dir, 'page.mjs');
    await writeFile(file, out.outputFiles[0]!.text);
    const mod = (await import(pathToFileURL(file).href)) as { referencePage: PageFn };
    return mod.referencePage;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function inlineScript(html: string): string {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  if (scripts.length !== 1 || !scripts[0]![1]!.includes('type="module"')) throw new Error('expected one module script');
  return scripts[0]![2]!;
}

export class StubNode {
  children: (StubNode | { data: string })[] = [];
  attrs = new Map<string, string>();
  listeners = new Map<string, ((e: unknown) => void)[]>();
  value = '';
  disabled = false;
  hidden = false;
  constructor(readonly tagName: string) {}
  setAttribute(name: string, value: string) {
    this.attrs.set(name, String(value));
  }
  getAttribute(name: string) {
    return this.attrs.get(name) ?? null;
  }
  removeAttribute(name: string) {
    this.attrs.delete(name);
  }
  /** Only `.class` selectors, the first match below this node. */
  querySelector(selector: string): StubNode | null {
    const cls = /^\.([\w-]+)$/.exec(selector)?.[1];
    return cls ? (this.all((n) => (n.attrs.get('class') ?? '').split(' ').includes(cls))[0] ?? null) : null;
  }
  insertBefore(node: StubNode, ref: StubNode | null) {
    const at = ref ? this.children.indexOf(ref) : -1;
    if (at < 0) this.children.push(node);
    else this.children.splice(at, 0, node);
  }
  classList = {
    add: (name: string) => this.attrs.set('class', `${this.attrs.get('class') ?? ''} ${name}`.trim()),
    remove: (name: string) =>
      this.attrs.set(
        'class',
        (this.attrs.get('class') ?? '')
          .split(' ')
          .filter((c) => c !== name)
          .join(' '),
      ),
  };
  get id() {
    return this.attrs.get('id') ?? '';
  }
  append(...nodes: (StubNode | { data: string })[]) {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes: (StubNode | { data: string })[]) {
    this.children = [...nodes];
  }
  addEventListener(type: string, fn: (e: unknown) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  dispatchEvent(event: { type: string }) {
    for (const fn of this.listeners.get(event.type) ?? []) fn(event);
    return true;
  }
  scrollIntoView() {}
  focus() {}
  get textContent(): string {
    return this.children.map((c) => (c instanceof StubNode ? c.textContent : c.data)).join('');
  }
  set textContent(text: string) {
    this.children = [{ data: String(text) }];
  }
  all(pred: (n: StubNode) => boolean): StubNode[] {
    const out: StubNode[] = [];
    for (const c of this.children)
      if (c instanceof StubNode) {
        if (pred(c)) out.push(c);
        out.push(...c.all(pred));
      }
    return out;
  }
  /** Visible: neither it nor an ancestor below `root` is hidden. */
  visibleIn(root: StubNode): boolean {
    const chain = (n: StubNode): StubNode[] | null => {
      if (n === this) return [n];
      for (const c of n.children)
        if (c instanceof StubNode) {
          const found = chain(c);
          if (found) return [n, ...found];
        }
      return null;
    };
    return (chain(root) ?? []).every((n) => !n.hidden);
  }
}

export interface FetchCall {
  url: string;
  init: { method?: string; headers?: Record<string, string>; body?: string };
}

const PAGE_IDS = [
  'title',
  'version',
  'description',
  'theme',
  'creds',
  'token',
  'token-clear',
  'search',
  'search-count',
  'no-match',
  'nav',
  'status',
  'operations',
];

/** Runs the page script against the stub; `/openapi.json` answers with `specResponse`, anything else 201. */
export function runPage(script: string, specResponse: () => Promise<{ ok: boolean; status: number; json: () => Promise<unknown> }>) {
  const root = new StubNode('html');
  const body = new StubNode('body');
  body.setAttribute('data-state', 'loading');
  body.setAttribute('data-spec-url', '/openapi.json');
  root.append(body);
  for (const id of PAGE_IDS) {
    const el = new StubNode(id === 'token' || id === 'search' ? 'input' : 'div');
    el.setAttribute('id', id);
    body.append(el);
  }
  const storage = new Map<string, string>();
  const local = new Map<string, string>();
  const calls: FetchCall[] = [];
  const consoleCalls: unknown[] = [];
  const fetch = async (url: string, init: FetchCall['init'] = {}) => {
    calls.push({ url, init });
    if (url === '/openapi.json') return specResponse();
    if (init.headers?.accept === 'text/event-stream') {
      // A stream whose events arrive split across chunks (and one chunk holding two events).
      const chunks = [
        'event: delta\ndata: {"te',
        'xt":"Hel"}\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: done\n',
        'data: {"reply":null}\n\n',
      ];
      return {
        status: 200,
        statusText: 'OK',
        headers: new Headers({ 'content-type': 'text/event-stream', 'x-request-id': 'req-456' }),
        body: new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
            controller.close();
          },
        }),
        text: async () => chunks.join(''),
      };
    }
    return {
      status: 201,
      statusText: 'Created',
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'req-123' }),
      text: async () => '{"ok":true}',
    };
  };
  const docListeners = new StubNode('document');
  const logger = new Proxy(
    {},
    {
      get:
        () =>
        (...args: unknown[]) =>
          consoleCalls.push(args),
    },
  );
  const context = vm.createContext({
    document: {
      body,
      createElement: (tag: string) => new StubNode(tag),
      createTextNode: (data: string) => ({ data }),
      documentElement: root,
      getElementById: (id: string) => root.all((n) => n.id === id)[0] ?? null,
      querySelector: () => null,
      querySelectorAll: () => [],
      addEventListener: (type: string, fn: (e: unknown) => void) => docListeners.addEventListener(type, fn),
    },
    fetch,
    sessionStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    },
    localStorage: {
      getItem: (k: string) => local.get(k) ?? null,
      setItem: (k: string, v: string) => void local.set(k, v),
    },
    location: { hash: '', origin: 'http://docs.test' },
    URLSearchParams,
    TextDecoder,
    setTimeout,
    Event: class {
      constructor(readonly type: string) {}
    },
    console: logger,
  });
  vm.runInContext(script, context);
  const settled = async () => {
    for (let i = 0; i < 50 && body.getAttribute('data-state') === 'loading'; i++) await new Promise((r) => setTimeout(r, 0));
  };
  const byId = (id: string) => root.all((n) => n.id === id)[0]!;
  const search = (query: string) => {
    const input = byId('search');
    input.value = query;
    input.dispatchEvent({ type: 'input' });
  };
  return { root, body, storage, local, calls, consoleCalls, settled, byId, search };
}
