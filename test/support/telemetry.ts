/**
 * The runtime's own trace events as a test sees them: a collector on loopback that the streaming
 * tail worker of `startMiniflare({ telemetry })` posts each invocation's events to, and the spans
 * rebuilt from them (name, parent, attributes) with the invocation's log lines.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event of a streaming tail (workers-types `TailStream.TailEvent`), as JSON. */
interface TailEvent {
  invocationId: string;
  spanContext: { traceId: string; spanId?: string };
  event:
    | { type: 'onset'; spanId: string; info?: { type: string; method?: string; url?: string } }
    | { type: 'spanOpen'; name: string; spanId: string }
    | { type: 'attributes'; info: { name: string; value: unknown }[] }
    | { type: 'spanClose'; outcome: string }
    | { type: 'log'; level: string; message: unknown }
    | { type: string };
}

export interface TracedSpan {
  id: string;
  name: string;
  /** The span it nests under (the invocation's root span for a top-level custom span). */
  parentId: string | undefined;
  attributes: Record<string, unknown>;
  closed: boolean;
}

export interface Invocation {
  id: string;
  /** The invocation's root span (its onset). */
  rootSpanId: string;
  /** `METHOD url` of a fetch invocation. */
  request: string | undefined;
  spans: TracedSpan[];
  /** What the worker wrote to its console, each line as written. */
  logs: { level: string; text: string }[];
}

function invocationOf(events: TailEvent[]): Invocation {
  const spans = new Map<string, TracedSpan>();
  let rootSpanId = '';
  let request: string | undefined;
  const logs: Invocation['logs'] = [];
  for (const { spanContext, event } of events) {
    if (event.type === 'onset' && 'spanId' in event) {
      rootSpanId = event.spanId;
      if ('info' in event && event.info?.type === 'fetch') request = `${event.info.method} ${event.info.url}`;
    } else if (event.type === 'spanOpen' && 'name' in event) {
      spans.set(event.spanId, { id: event.spanId, name: event.name, parentId: spanContext.spanId, attributes: {}, closed: false });
    } else if (event.type === 'attributes' && 'info' in event && spanContext.spanId) {
      const span = spans.get(spanContext.spanId);
      if (span) for (const { name, value } of event.info) span.attributes[name] = value;
    } else if (event.type === 'spanClose' && spanContext.spanId) {
      const span = spans.get(spanContext.spanId);
      if (span) span.closed = true;
    } else if (event.type === 'log' && 'message' in event) {
      const parts = Array.isArray(event.message) ? event.message : [event.message];
      logs.push({
        level: 'level' in event ? event.level : 'log',
        text: parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' '),
      });
    }
  }
  return { id: events[0]?.invocationId ?? '', rootSpanId, request, spans: [...spans.values()], logs };
}

/** A collector for the telemetry tail; `url` goes to `startMiniflare({ telemetry })`. */
export async function startTelemetryCollector() {
  const invocations: Invocation[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      invocations.push(invocationOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as TailEvent[]));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    invocations,
    /** The invocation whose log holds `requestId`'s request line, once it has arrived. */
    async invocationWith(requestId: string, timeoutMs = 10_000): Promise<Invocation> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = invocations.find((i) =>
          i.logs.some((l) => l.text.includes(`"requestId":"${requestId}"`) && l.text.includes('"event":"request"')),
        );
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no invocation with request ${requestId} reached the collector`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
