/**
 * Streamed responses (`text/event-stream`, Server-Sent Events) on the /docs page: the documented
 * example shown event by event, and Try it reading a live stream as its events arrive.
 * Serialized into the page like dom.ts.
 */
import { h, isObj, type Obj } from './dom';
import { deref, mediaExample, sample } from './schema';

/** The `text/event-stream` media of a response's content, if it has one. */
export function streamMedia(spec: Obj, content: unknown): Obj | null {
  if (!isObj(content)) return null;
  const key = Object.keys(content).find((k) => /^text\/event-stream/i.test(k));
  return key ? deref(spec, content[key]).s : null;
}

/**
 * The example of a stream: the documented one, else one event of each kind its event schema lists
 * (`oneOf`/`anyOf`, in order), so a stream documented by its event shapes still shows its events.
 */
export function streamExample(spec: Obj, media: Obj): unknown {
  if (media.example !== undefined || isObj(media.examples) || media.schema === undefined) return mediaExample(spec, media);
  const s = deref(spec, media.schema).s;
  const variants = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  return variants ? variants.map((v) => sample(spec, v, [])) : [sample(spec, media.schema, [])];
}

/** Events of SSE text: `event:` names (default `message`), `data:` lines joined; comments skipped. */
export function parseEvents(text: string): { event: string; data: string }[] {
  const events: { event: string; data: string }[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** One event: its name, then its data (pretty JSON when it is JSON). */
export function eventItem(event: string, data: string): HTMLElement {
  let pretty = data;
  try {
    pretty = JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    /* not JSON: as sent */
  }
  return h('li', { 'data-event': event }, h('span', { class: 'evname' }, `event: ${event}`), h('pre', { tabindex: '0' }, pretty));
}

/** A documented stream example (SSE text, or a list of { event, data }) as a list of events. */
export function eventList(example: unknown): HTMLElement {
  const events = Array.isArray(example)
    ? example.map((e) => (isObj(e) ? { event: String(e.event ?? 'message'), data: JSON.stringify(e.data ?? null) } : null))
    : parseEvents(typeof example === 'string' ? example : '');
  return h(
    'ol',
    { class: 'events', 'aria-label': 'Events of the stream, in order' },
    events.map((e) => (e ? eventItem(e.event, e.data) : null)),
  );
}

/** Reads a live `text/event-stream` body into `list`, one item per event as it completes. */
export async function readEventStream(body: ReadableStream<Uint8Array>, list: HTMLElement): Promise<number> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let count = 0;
  const flush = (final: boolean) => {
    const cut = final ? buffer.length : buffer.lastIndexOf('\n\n');
    if (cut < 0) return;
    for (const e of parseEvents(buffer.slice(0, cut))) {
      list.append(eventItem(e.event, e.data));
      count++;
    }
    buffer = buffer.slice(cut);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    flush(false);
  }
  flush(true);
  return count;
}
