/**
 * "Try it": sends an operation's request from the page, same origin, with the bearer token of the
 * header field. The token lives in that field and in sessionStorage (this tab only), is sent only
 * in the Authorization header and is never logged or shown. Serialized into the page like dom.ts.
 */
import { errorText, h, isObj, show, type Obj } from './dom';
import type { Operation } from './operations';
import { deref, jsonMedia, mediaExample, typeLabel } from './schema';
import { paramExample } from './samples';

interface ParamInput {
  p: Obj;
  input: HTMLInputElement;
}

export function readToken(): string {
  try {
    return sessionStorage.getItem('agent-gateway.token') ?? '';
  } catch {
    return '';
  }
}

export function initToken(): void {
  const input = document.getElementById('token') as HTMLInputElement | null;
  const clear = document.getElementById('token-clear');
  if (!input || !clear) return;
  input.value = readToken();
  input.addEventListener('input', () => {
    try {
      if (input.value) sessionStorage.setItem('agent-gateway.token', input.value.trim());
      else sessionStorage.removeItem('agent-gateway.token');
    } catch {
      /* storage unavailable: the token stays in the field only */
    }
  });
  clear.addEventListener('click', () => {
    input.value = '';
    input.dispatchEvent(new Event('input'));
  });
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
  const button = h('button', { type: 'button' }, 'Send') as HTMLButtonElement;
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  button.addEventListener('click', () => {
    void send(entry, inputs, body, result, button);
  });
  return h(
    'details',
    { class: 'try' },
    h('summary', {}, 'Try it'),
    entry.secured ? h('p', { class: 'note' }, 'Sends the bearer token of the field at the top of the page.') : null,
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
  result: HTMLElement,
  button: HTMLButtonElement,
): Promise<void> {
  const fail = (msg: string) => result.replaceChildren(h('div', { class: 'error', role: 'alert' }, msg));
  let path = entry.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
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
  const token = readToken();
  if (token && entry.secured) headers.authorization = `Bearer ${token}`;
  const url = path + (query.toString() ? `?${query.toString()}` : '');
  button.disabled = true;
  result.replaceChildren(h('p', { class: 'note' }, `Sending ${String(init.method)} ${url} ...`));
  try {
    const started = Date.now();
    const res = await fetch(url, init);
    const text = await res.text();
    let pretty = text;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* not JSON: show the raw text */
    }
    const lines = Array.from(res.headers.entries()).sort((a, b) => Number(b[0] === 'x-request-id') - Number(a[0] === 'x-request-id'));
    result.replaceChildren(
      h(
        'p',
        {},
        h('span', { class: `status s${String(res.status).charAt(0)}` }, `${show(res.status)} ${res.statusText}`),
        ' ',
        h('span', { class: 'note' }, `${String(init.method)} ${url} in ${Date.now() - started} ms`),
      ),
      h('h5', {}, 'Response body'),
      h('pre', { tabindex: '0' }, pretty || '(empty)'),
      h('h5', {}, 'Response headers'),
      h('pre', { tabindex: '0' }, lines.map(([k, v]) => `${k}: ${v}`).join('\n') || '(none)'),
    );
  } catch (e) {
    fail(`Request failed: ${errorText(e)}`);
  } finally {
    button.disabled = false;
  }
}
