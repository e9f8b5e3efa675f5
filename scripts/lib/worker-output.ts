/**
 * What a worker run in Miniflare says, kept where people and tests can read it: its console
 * output appended to a log file (the dev stack's `.dev/<name>.log`, the test harness' worker log),
 * and, for tests of the reply's spans, the runtime's own trace events (a streaming tail worker
 * beside the gateway that posts each invocation's events to a collector on loopback).
 */
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Test harness: the file every worker started by `startMiniflare` appends its output to, unless told otherwise. */
export const WORKER_LOG_ENV = 'AGENT_GATEWAY_WORKER_LOG';

/** A request log line of the gateway (src/http/request-log.ts): one per request, kept out of the console. */
const REQUEST_LINE = /^\{"level":"(?:info|error)","event":"request",/;

/**
 * Miniflare's `handleRuntimeStdio`: every line of workerd's stdout and stderr appended to `file`;
 * lines other than request log lines are also printed on this process' console, as Miniflare does
 * by default (tests that capture the console still see errors and warnings).
 */
export function workerOutputTo(file: string): (stdout: Readable, stderr: Readable) => void {
  const keep = (echo: (line: string) => void) => (line: string) => {
    appendFileSync(file, `${line}\n`);
    if (!REQUEST_LINE.test(line)) echo(line);
  };
  return (stdout, stderr) => {
    createInterface(stdout).on(
      'line',
      keep((line) => console.log(line)),
    );
    createInterface(stderr).on(
      'line',
      keep((line) => console.error(line)),
    );
  };
}

/** Compatibility flags that let a streaming tail worker see the gateway's own spans (tests only; Miniflare's local observability sets the same). */
export const TAIL_FLAGS = ['streaming_tail_worker', 'tail_worker_user_spans'] as const;

export const TELEMETRY_TAIL_NAME = 'telemetry-tail';

/** A streaming tail worker that posts each invocation's events (onset to outcome) as JSON to `collectorUrl`. */
export function telemetryTailWorker(collectorUrl: string, compatibilityDate: string) {
  return {
    name: TELEMETRY_TAIL_NAME,
    modules: true,
    script: TELEMETRY_TAIL,
    compatibilityDate,
    compatibilityFlags: ['streaming_tail_worker'],
    bindings: { COLLECTOR_URL: collectorUrl },
  };
}

const TELEMETRY_TAIL = `
const json = (value) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));
export default {
  tailStream(onset, env, ctx) {
    const events = [onset];
    return (event) => {
      events.push(event);
      if (event.event.type === 'outcome') {
        ctx.waitUntil(fetch(env.COLLECTOR_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json(events) }));
      }
    };
  },
};
`;
