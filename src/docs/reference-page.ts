/**
 * Self-contained interactive API reference served at `GET /docs`.
 *
 * One HTML string, inline CSS and an inline module script, no external resources.
 * The script fetches the OpenAPI 3.1 document at `specUrl` and renders it. All text
 * coming from the spec is inserted with text nodes (never innerHTML).
 *
 * Hooks for tests: `<body data-state="loading|ready|error">`, one
 * `section[data-operation="METHOD /path"]` per operation, nav links carry `data-nav`.
 */

const TOKEN_KEY = 'agent-gateway.token';

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON literal that is safe inside an inline `<script>` element. */
function scriptLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
code,pre,.path,input.mono,textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
header{background:#fff;border-bottom:1px solid #d0d7de;padding:16px 24px}
header h1{margin:0 8px 4px 0;font-size:22px;display:inline}
.version{background:#eaeef2;border-radius:10px;padding:1px 8px;font-size:12px}
.desc{white-space:pre-wrap;color:#57606a;margin:6px 0 0}
.token{margin-top:12px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.token input{flex:1;min-width:200px;max-width:520px}
input,textarea,select{padding:6px 8px;border:1px solid #d0d7de;border-radius:6px;background:#fff;font-size:14px}
textarea{width:100%;min-height:140px}
button{padding:6px 14px;border:1px solid #1f883d;border-radius:6px;background:#1f883d;color:#fff;cursor:pointer;font-size:14px}
button.secondary{background:#fff;color:#1f2328;border-color:#d0d7de}
.layout{display:grid;grid-template-columns:300px minmax(0,1fr)}
nav{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:16px;border-right:1px solid #d0d7de;background:#fff}
nav h2{font-size:12px;text-transform:uppercase;color:#57606a;margin:14px 0 4px}
nav ul{list-style:none;margin:0;padding:0}
nav a{display:flex;gap:6px;align-items:baseline;padding:3px 4px;border-radius:4px;color:inherit;text-decoration:none;overflow-wrap:break-word}
nav a:hover{background:#f3f4f6}
main{padding:16px 24px;min-width:0}
.op{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px;margin:0 0 18px;scroll-margin-top:12px}
.op h3{margin:0;display:flex;flex-wrap:wrap;gap:8px;align-items:center;font-size:16px}
.path{overflow-wrap:break-word}
.method{display:inline-block;min-width:56px;text-align:center;border-radius:4px;padding:1px 6px;font:700 11px/18px ui-monospace,monospace;color:#fff;background:#6e7781}
.m-get{background:#0969da}.m-post{background:#1f883d}.m-put{background:#9a6700}.m-patch{background:#8250df}.m-delete{background:#cf222e}
.lock{font-size:12px;background:#fff8c5;border:1px solid #d4a72c;border-radius:10px;padding:0 8px}
.summary{font-weight:600;margin:8px 0 0}
h4{margin:16px 0 6px;font-size:14px}
table{border-collapse:collapse;width:100%;font-size:13px;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.snode{margin-left:14px}
.srow{display:inline-flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.type{color:#8250df;font-family:ui-monospace,monospace;font-size:12px}
.req{color:#cf222e;font-weight:700}
.chip{background:#f3f4f6;border-radius:4px;padding:0 5px;font-size:12px;overflow-wrap:break-word}
.sdesc,.note{color:#57606a;font-size:13px;white-space:pre-wrap}
.resp{border-left:3px solid #d0d7de;padding-left:10px;margin:8px 0}
.status{font-weight:700;font-family:ui-monospace,monospace}
.try{margin-top:14px;border-top:1px dashed #d0d7de;padding-top:8px}
.try summary{cursor:pointer;font-weight:600}
.field{display:grid;grid-template-columns:220px minmax(0,1fr);gap:8px;margin:6px 0;align-items:center}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px;overflow:auto;max-height:420px;margin:6px 0}
.error{background:#ffebe9;border:1px solid #ff8182;color:#82071e;border-radius:6px;padding:10px 14px;margin:12px 0}
@media (max-width:800px){.layout{grid-template-columns:1fr}nav{position:static;max-height:none;border-right:0;border-bottom:1px solid #d0d7de}.field{grid-template-columns:1fr}main,header{padding:12px}}
`;

// Browser code. Written without backticks or `${` so it can live in a raw template.
const SCRIPT = String.raw`
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const $ = (id) => document.getElementById(id);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
let spec = {};

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined && v !== false) el.setAttribute(k, String(v));
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(typeof kid === 'object' ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
// Description text with \`code\` spans as <code> elements, built from text nodes (never HTML).
// A path that may wrap after each slash, never inside a word.
const pathText = (path) => path.split('/').flatMap((part, i) => (i === 0 ? [part] : [h('wbr', {}), '/' + part]));
const md = (text) => String(text).split('\u0060').map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part));

function pointer(ref) {
  if (typeof ref !== 'string' || ref.indexOf('#/') !== 0) return undefined;
  let cur = spec;
  for (const part of ref.slice(2).split('/')) {
    if (!isObj(cur) && !Array.isArray(cur)) return undefined;
    cur = cur[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}
// Follows a $ref chain; sibling keywords next to $ref override the target (OpenAPI 3.1).
function deref(node) {
  let s = isObj(node) ? node : {};
  let ref = null;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) {
    ref = ref || s.$ref;
    const { $ref, ...rest } = s;
    const target = pointer($ref);
    s = Object.assign({}, isObj(target) ? target : { description: 'Unresolved reference ' + $ref }, rest);
  }
  return { s, ref };
}
const refName = (ref) => (ref ? ref.split('/').pop() : '');

function typeLabel(s) {
  let t = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (!t) t = s.properties ? 'object' : s.items ? 'array' : s.allOf ? 'allOf' : s.anyOf ? 'anyOf' : s.oneOf ? 'oneOf' : s.enum ? 'enum' : 'any';
  if (t === 'array' && s.items) t = 'array<' + (refName(s.items.$ref) || typeLabel(deref(s.items).s)) + '>';
  return t + (s.format ? ' (' + s.format + ')' : '');
}

const FACTS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default'];
function facts(s) {
  const out = [];
  if (Array.isArray(s.enum)) out.push('enum: ' + s.enum.map(show).join(' | '));
  if (s.const !== undefined) out.push('const: ' + show(s.const));
  for (const k of FACTS) if (s[k] !== undefined) out.push(k + ': ' + show(s[k]));
  const ex = s.example !== undefined ? s.example : Array.isArray(s.examples) ? s.examples[0] : undefined;
  if (ex !== undefined) out.push('example: ' + show(ex));
  return out.map((f) => h('span', { class: 'chip' }, f));
}

function schemaTree(node, name, required, stack) {
  const { s, ref } = deref(node);
  const row = h('span', { class: 'srow' },
    name !== null ? h('code', {}, name) : null,
    required ? h('span', { class: 'req', title: 'required' }, '*') : null,
    h('span', { class: 'type' }, ref ? refName(ref) + ': ' + typeLabel(s) : typeLabel(s)),
    facts(s));
  const desc = s.description ? h('div', { class: 'sdesc' }, md(s.description)) : null;
  if (ref && stack.includes(ref)) return h('div', { class: 'snode' }, row, h('span', { class: 'note' }, ' (recursive, see above)'));
  const next = ref ? stack.concat(ref) : stack;
  const kids = [];
  const req = Array.isArray(s.required) ? s.required : [];
  if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) kids.push(schemaTree(v, k, req.includes(k), next));
  if (isObj(s.items)) kids.push(schemaTree(s.items, '[item]', false, next));
  if (isObj(s.additionalProperties)) kids.push(schemaTree(s.additionalProperties, '{key}', false, next));
  for (const kw of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[kw])) s[kw].forEach((v, i) => kids.push(schemaTree(v, kw + ' #' + (i + 1), false, next)));
  if (!kids.length) return h('div', { class: 'snode' }, row, desc);
  return h('details', { class: 'snode', open: next.length < 3 ? '' : null }, h('summary', {}, row), desc, kids);
}

// Example value for a schema: explicit example first, otherwise a generated skeleton.
function sample(node, stack) {
  const { s, ref } = deref(node);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (ref && stack.includes(ref)) return null;
  const next = ref ? stack.concat(ref) : stack;
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((v) => sample(v, next)).filter(isObj));
  const alt = s.anyOf || s.oneOf;
  if (Array.isArray(alt)) return sample(alt.find((v) => deref(v).s.type !== 'null') || alt[0], next);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || isObj(s.properties)) {
    const out = {};
    for (const [k, v] of Object.entries(s.properties || {})) out[k] = sample(v, next);
    return out;
  }
  if (type === 'array') return s.items ? [sample(s.items, next)] : [];
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 0;
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  return type === 'string' || !type ? 'string' : null;
}

function jsonMedia(content) {
  if (!isObj(content)) return null;
  const key = Object.keys(content).find((k) => /json/i.test(k)) || Object.keys(content)[0];
  return key ? content[key] : null;
}

function collectOperations() {
  const ops = [];
  const used = new Set();
  for (const [path, rawItem] of Object.entries(spec.paths || {})) {
    const item = deref(rawItem).s;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const params = new Map();
      for (const p of (item.parameters || []).concat(op.parameters || [])) {
        const param = deref(p).s;
        params.set(param.in + ':' + param.name, param);
      }
      let id = 'op-' + (method + '-' + path).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '');
      while (used.has(id)) id += '-x';
      used.add(id);
      const security = Array.isArray(op.security) ? op.security : Array.isArray(spec.security) ? spec.security : [];
      const secured = security.some((req) => isObj(req) && Object.keys(req).length > 0);
      const tag = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : 'Other';
      ops.push({ path, method, op, id, tag, secured, params: Array.from(params.values()) });
    }
  }
  return ops;
}

function paramsTable(params) {
  const head = h('tr', {}, ['Name', 'In', 'Required', 'Type', 'Description', 'Example'].map((t) => h('th', {}, t)));
  const rows = params.map((p) => {
    const s = deref(p.schema).s;
    const ex = p.example !== undefined ? p.example : s.example;
    return h('tr', {}, h('td', {}, h('code', {}, p.name)), h('td', {}, p.in), h('td', {}, p.required ? 'yes' : 'no'),
      h('td', {}, h('span', { class: 'type' }, typeLabel(s)), ' ', facts(Object.assign({}, s, { example: undefined, examples: undefined }))),
      h('td', {}, md(p.description || s.description || '')), h('td', {}, ex === undefined ? '' : h('code', {}, show(ex))));
  });
  return h('table', {}, h('thead', {}, head), h('tbody', {}, rows));
}

function tryPanel(entry) {
  const inputs = entry.params.filter((p) => ['path', 'query', 'header'].includes(p.in)).map((p) => {
    const s = deref(p.schema).s;
    const ex = p.example !== undefined ? p.example : s.example;
    const input = h('input', { class: 'mono', type: 'text', placeholder: ex === undefined ? typeLabel(s) : show(ex), 'aria-label': p.in + ' parameter ' + p.name });
    return { p, input, row: h('label', { class: 'field' }, h('span', {}, h('code', {}, p.name), ' (' + p.in + (p.required ? ', required' : '') + ')'), input) };
  });
  const media = isObj(entry.op.requestBody) ? jsonMedia(deref(entry.op.requestBody).s.content) : null;
  let body = null;
  if (media) {
    const firstExample = isObj(media.examples) ? Object.values(media.examples).map((e) => deref(e).s.value).find((v) => v !== undefined) : undefined;
    const value = media.example !== undefined ? media.example : firstExample !== undefined ? firstExample : sample(media.schema, []);
    body = h('textarea', { spellcheck: 'false', 'aria-label': 'JSON request body' });
    body.value = JSON.stringify(value, null, 2);
  }
  const button = h('button', { type: 'button' }, 'Send');
  const result = h('div', { class: 'result' });
  button.addEventListener('click', () => send(entry, inputs, body, result, button));
  return h('details', { class: 'try' }, h('summary', {}, 'Try it'), inputs.map((i) => i.row),
    body ? [h('h4', {}, 'Body (application/json)'), body] : null, h('p', {}, button), result);
}

async function send(entry, inputs, body, result, button) {
  const fail = (msg) => result.replaceChildren(h('div', { class: 'error', role: 'alert' }, msg));
  let path = entry.path;
  const query = new URLSearchParams();
  const headers = { accept: 'application/json' };
  for (const { p, input } of inputs) {
    const v = input.value;
    if (v === '') {
      if (p.required && p.in === 'path') return fail('Missing required path parameter: ' + p.name);
      continue;
    }
    if (p.in === 'path') path = path.split('{' + p.name + '}').join(encodeURIComponent(v));
    else if (p.in === 'query') query.append(p.name, v);
    else headers[p.name] = v;
  }
  const init = { method: entry.method.toUpperCase(), headers };
  if (body && body.value.trim() !== '') {
    try { init.body = JSON.stringify(JSON.parse(body.value)); } catch (e) { return fail('Body is not valid JSON: ' + e.message); }
    headers['content-type'] = 'application/json';
  }
  const token = readToken();
  if (token) headers.authorization = 'Bearer ' + token;
  const server = Array.isArray(spec.servers) && spec.servers[0] && typeof spec.servers[0].url === 'string' ? spec.servers[0].url : '';
  const base = server.charAt(0) === '/' ? server.replace(/[/]+$/, '') : '';
  const url = base + path + (query.toString() ? '?' + query : '');
  button.disabled = true;
  result.replaceChildren(h('p', { class: 'note' }, 'Sending ' + init.method + ' ' + url + ' ...'));
  try {
    const started = Date.now();
    const res = await fetch(url, init);
    const text = await res.text();
    let pretty = text;
    try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON: show raw text */ }
    const lines = Array.from(res.headers.entries()).sort((a, b) => (b[0] === 'x-request-id') - (a[0] === 'x-request-id'));
    result.replaceChildren(
      h('p', {}, h('span', { class: 'status' }, res.status + ' ' + res.statusText), ' ', h('span', { class: 'note' }, init.method + ' ' + url + ' in ' + (Date.now() - started) + ' ms')),
      h('h4', {}, 'Response headers'), h('pre', {}, lines.map(([k, v]) => k + ': ' + v).join('\n') || '(none)'),
      h('h4', {}, 'Response body'), h('pre', {}, pretty || '(empty)'));
  } catch (e) {
    fail('Request failed: ' + (e && e.message ? e.message : String(e)));
  } finally {
    button.disabled = false;
  }
}

function renderOperation(entry) {
  const { op, method, path } = entry;
  const parts = [h('h3', {}, h('span', { class: 'method m-' + method }, method.toUpperCase()), h('span', { class: 'path' }, pathText(path)),
    entry.secured ? h('span', { class: 'lock', title: 'Send Authorization: Bearer <token>' }, 'requires bearer token') : null)];
  if (op.summary) parts.push(h('p', { class: 'summary' }, op.summary));
  if (op.description) parts.push(h('p', { class: 'desc' }, md(op.description)));
  if (entry.params.length) parts.push(h('h4', {}, 'Parameters'), paramsTable(entry.params));
  if (isObj(op.requestBody)) {
    const rb = deref(op.requestBody).s;
    const media = jsonMedia(rb.content);
    parts.push(h('h4', {}, 'Request body' + (rb.required ? ' (required)' : '')), rb.description ? h('p', { class: 'desc' }, md(rb.description)) : null,
      media && media.schema ? schemaTree(media.schema, null, false, []) : null);
  }
  parts.push(h('h4', {}, 'Responses'));
  for (const [status, raw] of Object.entries(op.responses || {})) {
    const r = deref(raw).s;
    const media = jsonMedia(r.content);
    parts.push(h('div', { class: 'resp' }, h('span', { class: 'status' }, status), ' ', md(r.description || ''),
      media && media.schema ? schemaTree(media.schema, null, false, []) : null));
  }
  parts.push(tryPanel(entry));
  return h('section', { class: 'op', id: entry.id, 'data-operation': method.toUpperCase() + ' ' + path, 'data-method': method.toUpperCase(), 'data-auth': entry.secured ? 'bearer' : 'none' }, parts);
}

function readToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; }
}
function initToken() {
  const input = $('token');
  input.value = readToken();
  input.addEventListener('input', () => {
    try { if (input.value) sessionStorage.setItem(TOKEN_KEY, input.value); else sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* storage unavailable */ }
  });
  $('token-clear').addEventListener('click', () => { input.value = ''; input.dispatchEvent(new Event('input')); });
}

async function main() {
  initToken();
  try {
    const res = await fetch(SPEC_URL, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error('HTTP ' + res.status);
    spec = await res.json();
    if (!isObj(spec) || !isObj(spec.paths)) throw new Error('document has no paths');
  } catch (e) {
    $('status').replaceChildren(h('div', { class: 'error', role: 'alert' }, 'Could not load the API specification from ' + SPEC_URL + ': ' + (e && e.message ? e.message : String(e))));
    document.body.setAttribute('data-state', 'error');
    return;
  }
  const info = isObj(spec.info) ? spec.info : {};
  if (info.title) $('title').textContent = String(info.title);
  $('version').textContent = info.version ? 'v' + info.version : '';
  $('description').textContent = '';
  if (info.description) $('description').append(h('span', {}, md(info.description)));
  const ops = collectOperations();
  const order = (Array.isArray(spec.tags) ? spec.tags.map((t) => t && t.name) : []).concat(ops.map((o) => o.tag));
  const groups = Array.from(new Set(order.concat('Other'))).filter((t) => ops.some((o) => o.tag === t));
  const nav = [];
  const sections = [];
  for (const tag of groups) {
    const inTag = ops.filter((o) => o.tag === tag);
    nav.push(h('h2', {}, tag), h('ul', {}, inTag.map((o) => h('li', {}, h('a', { href: '#' + o.id, 'data-nav': o.method.toUpperCase() + ' ' + o.path },
      h('span', { class: 'method m-' + o.method }, o.method.toUpperCase()), h('span', { class: 'path' }, pathText(o.path)))))));
    sections.push(h('h2', { 'data-tag': tag }, tag), inTag.map(renderOperation));
  }
  $('nav').replaceChildren(...nav);
  $('operations').replaceChildren(...sections.flat());
  $('status').replaceChildren();
  document.body.setAttribute('data-state', 'ready');
  if (location.hash.length > 1) { const target = $(decodeURIComponent(location.hash.slice(1))); if (target) target.scrollIntoView(); }
}
main().catch((e) => {
  $('status').replaceChildren(h('div', { class: 'error', role: 'alert' }, 'Failed to render the API reference: ' + (e && e.message ? e.message : String(e))));
  document.body.setAttribute('data-state', 'error');
});
`;

export function referencePage(options: { specUrl: string; title: string }): string {
  const title = escapeHtml(options.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body data-state="loading">
<header>
<h1 id="title">${title}</h1><span class="version" id="version"></span>
<p class="desc" id="description"></p>
<div class="token">
<label for="token">Bearer token</label>
<input id="token" class="mono" type="password" autocomplete="off" spellcheck="false" placeholder="paste a token to authorize Try it requests">
<button type="button" class="secondary" id="token-clear">Clear</button>
</div>
</header>
<div class="layout">
<nav id="nav" aria-label="Operations"></nav>
<main>
<div id="status"><p class="note">Loading API specification...</p></div>
<div id="operations"></div>
</main>
</div>
<script type="module">
const SPEC_URL = ${scriptLiteral(options.specUrl)};
const TOKEN_KEY = ${scriptLiteral(TOKEN_KEY)};
${SCRIPT}</script>
</body>
</html>
`;
}
