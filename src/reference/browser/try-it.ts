/**
 * "Try it": sends an operation's request from the page, same origin, with the credential of one of
 * the header's fields (credentials.ts): the operation's scheme, or the one chosen among those it
 * accepts. A `text/event-stream` answer is shown event by event as it arrives. Serialized into
 * the page like dom.ts.
 */
import { readCredential, schemeLabel } from './credentials';
import { errorText, h, isObj, show, type Obj } from './dom';
import { readEventStream, streamMedia } from './events';
import type { Operation } from './operations';
import { deref, jsonMedia, mediaExample, typeLabel } from './schema';
import { paramExample } from './samples';

interface ParamInput {
  p: Obj;
  input: HTMLInputElement;
}

/** What the request sends besides its parameters: the credential's scheme and the Accept header. */
interface SendChoice {
  scheme: HTMLSelectElement | null;
  accept: HTMLSelectElement | null;
}

/** A labelled select of `values` (the first selected). */
export function choice(id: string, label: string, values: string[], describe: (v: string) => string): [HTMLElement, HTMLSelectElement] {
  const select = h(
    'select',
    { id },
    values.map((v) => h('option', { value: v }, describe(v))),
  ) as HTMLSelectElement;
  return [h('div', { class: 'field' }, h('label', { for: id }, label), select), select];
}

export function tryPanel(spec: Obj, entry: Operation): HTMLElement {
  const inputs: ParamInput[] = [];
  const rows = entry.params
    .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
    .map((p) => {
      const s = deref(spec, p.schema).s;
      const fieldId = `${entry.id}-p-${String(p.in)}-${String(p.name)}`;
      const input = h('input', {
        id: fieldId,
        class: 'mono',
        type: 'text',
        placeholder: paramExample(spec, p) || typeLabel(spec, s),
        spellcheck: 'false',
        autocomplete: 'off',
      }) as HTMLInputElement;
      if (p.in === 'path') input.value = paramExample(spec, p);
      inputs.push({ p, input });
      return h(
        'div',
        { class: 'field' },
        h('label', { for: fieldId }, h('code', {}, String(p.name)), ` (${String(p.in)}${p.required ? ', required' : ''})`),
        input,
      );
    });
  const rb = isObj(entry.op.requestBody) ? deref(spec, entry.op.requestBody).s : null;
  const media = rb ? jsonMedia(spec, rb.content) : null;
  let body: HTMLTextAreaElement | null = null;
  if (media) {
    body = h('textarea', { id: `${entry.id}-body`, spellcheck: 'false', rows: '8' }) as HTMLTextAreaElement;
    body.value = JSON.stringify(mediaExample(spec, media), null, 2);
  }
  const chosen: SendChoice = { scheme: null, accept: null };
  const extra: HTMLElement[] = [];
  if (entry.schemes.length > 1) {
    const [row, select] = choice(`${entry.id}-scheme`, 'Credential', entry.schemes, (k) => `${schemeLabel(k)} (${k})`);
    // The first scheme whose field holds a credential, when one does.
    select.value = entry.schemes.find((k) => readCredential(k) !== '') ?? entry.schemes[0] ?? '';
    chosen.scheme = select;
    extra.push(row);
  }
  const responses = isObj(entry.op.responses) ? Object.values(entry.op.responses) : [];
  if (responses.some((r) => streamMedia(spec, deref(spec, r).s.content) !== null)) {
    const [row, select] = choice(`${entry.id}-accept`, 'Accept', ['application/json', 'text/event-stream'], (v) =>
      v === 'text/event-stream' ? 'text/event-stream (events as they arrive)' : v,
    );
    chosen.accept = select;
    extra.push(row);
  }
  const button = h('button', { type: 'button' }, 'Send') as HTMLButtonElement;
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  button.addEventListener('click', () => {
    void send(entry, inputs, body, chosen, result, button);
  });
  return h(
    'details',
    { class: 'try', 'data-try': entry.id },
    h('summary', {}, 'Try it'),
    entry.secured ? h('p', { class: 'note' }, 'Sends the credential of its field at the top of the page (Authorization: Bearer).') : null,
    extra,
    rows,
    body ? [h('label', { for: body.id, class: 'blabel' }, 'Body (application/json)'), body] : null,
    h('p', {}, button),
    result,
  );
}

export async function send(
  entry: Operation,
  inputs: ParamInput[],
  body: HTMLTextAreaElement | null,
  chosen: SendChoice,
  result: HTMLElement,
  button: HTMLButtonElement,
): Promise<void> {
  const fail = (msg: string) => result.replaceChildren(h('div', { class: 'error', role: 'alert' }, msg));
  let path = entry.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: chosen.accept?.value ?? 'application/json' };
  for (const { p, input } of inputs) {
    const v = input.value;
    const name = String(p.name);
    if (v === '') {
      if (p.required && p.in === 'path') return fail(`Missing required path parameter: ${name}`);
      continue;
    }
    if (p.in === 'path') path = path.split(`{${name}}`).join(encodeURIComponent(v));
    else if (p.in === 'query') query.append(name, v);
    else headers[name] = v;
  }
  const init: RequestInit & { headers: Record<string, string> } = { method: entry.method.toUpperCase(), headers };
  if (body && body.value.trim() !== '') {
    try {
      init.body = JSON.stringify(JSON.parse(body.value));
    } catch (e) {
      return fail(`Body is not valid JSON: ${errorText(e)}`);
    }
    headers['content-type'] = 'application/json';
  }
  const scheme = chosen.scheme?.value ?? entry.schemes[0];
  const credential = scheme === undefined ? '' : readCredential(scheme);
  if (credential && entry.secured) headers.authorization = `Bearer ${credential}`;
  const url = path + (query.toString() ? `?${query.toString()}` : '');
  button.disabled = true;
  result.replaceChildren(h('p', { class: 'note' }, `Sending ${String(init.method)} ${url} ...`));
  try {
    const started = Date.now();
    const res = await fetch(url, init);
    const status = h(
      'p',
      {},
      h('span', { class: `status s${String(res.status).charAt(0)}` }, `${show(res.status)} ${res.statusText}`),
      ' ',
      h('span', { class: 'note' }, `${String(init.method)} ${url} in ${Date.now() - started} ms`),
    );
    const lines = Array.from(res.headers.entries()).sort((a, b) => Number(b[0] === 'x-request-id') - Number(a[0] === 'x-request-id'));
    const headerBlock = [
      h('h5', {}, 'Response headers'),
      h('pre', { tabindex: '0' }, lines.map(([k, v]) => `${k}: ${v}`).join('\n') || '(none)'),
    ];
    if (res.body && /^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
      const events = h('ol', { class: 'events', 'data-live-events': '', 'aria-label': 'Events received' });
      const count = h('p', { class: 'note' }, 'Receiving events...');
      result.replaceChildren(status, h('h5', {}, 'Events (streamed)'), count, events, ...headerBlock);
      const n = await readEventStream(res.body, events);
      count.textContent = `${n} events in ${Date.now() - started} ms; the stream ended.`;
      return;
    }
    const text = await res.text();
    let pretty = text;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* not JSON: show the raw text */
    }
    result.replaceChildren(status, h('h5', {}, 'Response body'), h('pre', { tabindex: '0' }, pretty || '(empty)'), ...headerBlock);
  } catch (e) {
    fail(`Request failed: ${errorText(e)}`);
  } finally {
    button.disabled = false;
  }
}
