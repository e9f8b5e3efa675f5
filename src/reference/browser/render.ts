/**
 * One operation's section of the /docs page: summary, parameters, request body, responses with
 * examples, code samples (curl, agent-gateway/client) and Try it. Serialized like dom.ts.
 */
import { codeBlock, h, isObj, md, pathText, type Child, type Obj } from './dom';
import type { Operation } from './operations';
import { schemeLabel } from './credentials';
import { eventList, streamExample, streamMedia } from './events';
import { clientSample, curlSample, sampleInput } from './samples';
import { deref, facts, jsonMedia, mediaExample, schemaTree, typeLabel } from './schema';
import { tryPanel } from './try-it';

export function methodBadge(method: string): HTMLElement {
  return h('span', { class: `method m-${method}` }, method.toUpperCase());
}

export function paramsTable(spec: Obj, params: Obj[]): HTMLElement {
  return h(
    'ul',
    { class: 'params' },
    params.map((p) => {
      const s = deref(spec, p.schema).s;
      const ex = p.example !== undefined ? p.example : s.example;
      return h(
        'li',
        { class: 'param' },
        h(
          'div',
          { class: 'srow' },
          h('code', { class: 'pname' }, String(p.name)),
          h('span', { class: 'type' }, typeLabel(spec, s)),
          h('span', { class: 'pin' }, `in ${String(p.in)}`),
          p.required ? h('span', { class: 'req' }, 'required') : null,
        ),
        (p.description ?? s.description) ? h('div', { class: 'sdesc' }, md(p.description ?? s.description)) : null,
        h(
          'div',
          { class: 'srow' },
          facts(s, false),
          ex === undefined ? null : h('span', { class: 'chip' }, `example: ${typeof ex === 'string' ? ex : JSON.stringify(ex)}`),
        ),
      );
    }),
  );
}

/** Accessible tabs (arrow keys move between them); the first is selected. */
export function tabs(label: string, items: { name: string; panel: HTMLElement }[], idPrefix: string): HTMLElement {
  const buttons: HTMLElement[] = [];
  const select = (index: number, focus: boolean) => {
    items.forEach((item, i) => {
      buttons[i]?.setAttribute('aria-selected', i === index ? 'true' : 'false');
      buttons[i]?.setAttribute('tabindex', i === index ? '0' : '-1');
      item.panel.hidden = i !== index;
    });
    if (focus) buttons[index]?.focus();
  };
  items.forEach((item, i) => {
    const b = h(
      'button',
      {
        type: 'button',
        role: 'tab',
        class: 'tab',
        id: `${idPrefix}-tab-${i}`,
        'aria-controls': `${idPrefix}-panel-${i}`,
        'data-tab': item.name,
      },
      item.name,
    );
    b.addEventListener('click', () => select(i, false));
    b.addEventListener('keydown', (e: Event) => {
      const key = (e as KeyboardEvent).key;
      if (key === 'ArrowRight' || key === 'ArrowLeft') {
        e.preventDefault();
        select((i + (key === 'ArrowRight' ? 1 : items.length - 1)) % items.length, true);
      }
    });
    buttons.push(b);
    item.panel.setAttribute('role', 'tabpanel');
    item.panel.setAttribute('id', `${idPrefix}-panel-${i}`);
    item.panel.setAttribute('aria-labelledby', `${idPrefix}-tab-${i}`);
  });
  select(0, false);
  return h(
    'div',
    { class: 'tabs' },
    h('div', { role: 'tablist', 'aria-label': label }, buttons),
    items.map((i) => i.panel),
  );
}

export function responseList(spec: Obj, entry: Operation): { list: Child[]; examples: { name: string; panel: HTMLElement }[] } {
  const list: Child[] = [];
  const examples: { name: string; panel: HTMLElement }[] = [];
  for (const [status, raw] of Object.entries(isObj(entry.op.responses) ? entry.op.responses : {})) {
    const r = deref(spec, raw).s;
    const content = isObj(r.content) ? r.content : {};
    const stream = streamMedia(spec, content);
    const json = Object.keys(content).some((k) => /json/i.test(k)) ? jsonMedia(spec, content) : stream ? null : jsonMedia(spec, content);
    const example = mediaExample(spec, json);
    const streamed = stream ? streamExample(spec, stream) : undefined;
    list.push(
      h(
        'div',
        { class: 'resp', 'data-status': status },
        h('span', { class: `status s${status.charAt(0)}` }, status),
        ' ',
        md(r.description ?? ''),
        json && json.schema !== undefined
          ? h('details', { class: 'rschema' }, h('summary', {}, 'Schema'), schemaTree(spec, json.schema, null, false, []))
          : null,
        stream
          ? h(
              'div',
              { 'data-stream': status },
              h('span', { class: 'stream' }, 'text/event-stream: streamed events (Server-Sent Events); ask with Accept: text/event-stream'),
              stream.description ? h('div', { class: 'sdesc' }, md(stream.description)) : null,
              stream.schema !== undefined && isObj(deref(spec, stream.schema).s.properties)
                ? h('details', { class: 'rschema' }, h('summary', {}, 'Event schema'), schemaTree(spec, stream.schema, null, false, []))
                : null,
            )
          : null,
      ),
    );
    if (example !== undefined) {
      examples.push({
        name: status,
        panel: codeBlock(`Example response ${status}`, JSON.stringify(example, null, 2), { 'data-example': `response ${status}` }),
      });
    }
    if (streamed !== undefined) {
      const panel = h('div', { 'data-example': `stream ${status}` }, eventList(streamed));
      if (typeof streamed === 'string')
        panel.append(codeBlock(`Example stream ${status} (raw)`, streamed, { 'data-example': `raw stream ${status}` }));
      examples.push({ name: `${status} stream`, panel });
    }
  }
  return { list, examples };
}

export function renderOperation(spec: Obj, entry: Operation, baseUrl: string): HTMLElement {
  const { op, method, path } = entry;
  const main: Child[] = [];
  if (op.description) main.push(h('p', { class: 'desc' }, md(op.description)));
  if (entry.params.length) main.push(h('h4', {}, 'Parameters'), paramsTable(spec, entry.params));
  const rb = isObj(op.requestBody) ? deref(spec, op.requestBody).s : null;
  const reqMedia = rb ? jsonMedia(spec, rb.content) : null;
  if (rb) {
    main.push(
      h('h4', {}, 'Request body', rb.required ? h('span', { class: 'req' }, 'required') : null),
      rb.description ? h('p', { class: 'desc' }, md(rb.description)) : null,
      reqMedia && reqMedia.schema !== undefined ? schemaTree(spec, reqMedia.schema, null, false, []) : null,
    );
  }
  const responses = responseList(spec, entry);
  main.push(h('h4', {}, 'Responses'), responses.list);

  const input = sampleInput(spec, entry, baseUrl);
  const side: Child[] = [
    h('h4', {}, 'Request'),
    tabs(
      'Code samples',
      [
        { name: 'curl', panel: codeBlock('curl sample', curlSample(entry, input), { 'data-sample': 'curl' }) },
        {
          name: 'TypeScript client',
          panel: codeBlock('agent-gateway/client sample', clientSample(entry, input), { 'data-sample': 'client' }),
        },
      ],
      `${entry.id}-samples`,
    ),
    tryPanel(spec, entry),
  ];
  if (reqMedia)
    side.push(
      h('h4', {}, 'Example request body'),
      codeBlock('Example request body', JSON.stringify(mediaExample(spec, reqMedia), null, 2), { 'data-example': 'request' }),
    );
  if (responses.examples.length)
    side.push(h('h4', {}, 'Example responses'), tabs('Example responses by status', responses.examples, `${entry.id}-examples`));

  return h(
    'section',
    {
      class: 'op',
      id: entry.id,
      'aria-labelledby': `${entry.id}-title`,
      'data-operation': `${method.toUpperCase()} ${path}`,
      'data-operation-id': entry.operationId,
      'data-auth': entry.secured ? entry.schemes.join(' ') : 'none',
    },
    h(
      'div',
      { class: 'ophead' },
      h('h3', { id: `${entry.id}-title` }, entry.summary),
      h(
        'p',
        { class: 'oppath' },
        methodBadge(method),
        h('code', { class: 'path' }, pathText(path)),
        entry.secured ? lock(entry) : null,
        entry.operationId ? h('span', { class: 'opid', title: 'operationId' }, entry.operationId) : null,
      ),
    ),
    h('div', { class: 'opbody' }, h('div', { class: 'opmain' }, main), h('div', { class: 'opside' }, side)),
  );
}

/**
 * What the operation takes in Authorization: any one of its schemes; an agent key says the scope
 * it needs (`x-agent-key-scope`).
 */
export function lock(entry: Pick<Operation, 'op' | 'schemes'>): HTMLElement {
  const scope = entry.op['x-agent-key-scope'];
  const names = entry.schemes.map((k) =>
    k === 'bearer'
      ? 'bearer token'
      : k === 'agentKey' && typeof scope === 'string'
        ? `agent key (${scope === 'any' ? 'any scope' : scope})`
        : schemeLabel(k).toLowerCase(),
  );
  return h('span', { class: 'lock', title: 'Send Authorization: Bearer <credential>' }, `requires ${names.join(' or ')}`);
}
