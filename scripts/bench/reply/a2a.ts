/**
 * The A2A part of `bench:reply`: `SendStreamingMessage` on the agent's A2A route
 * (`POST …/a2a`), read off the wire with a plain fetch and the client's own SSE parser (the same
 * parser that reads the stand-in's stream for the floor), so nothing but the gateway sits between
 * the two clocks. Times the first artifact chunk with text and the stream's end.
 */
import { sseEvents } from '../../../src/client/sse';
import { BenchError, markdownTable, ms, now, ratio, summarize } from '../lib';

export interface A2aTiming {
  /** ms to the first artifact chunk carrying text. */
  firstChunk: number;
  /** ms to the stream's end. */
  whole: number;
  text: string;
  /** The last status the stream named (`TASK_STATE_COMPLETED` when all went well). */
  state: string;
}

interface StreamAnswer {
  result?: {
    artifactUpdate?: { artifact?: { parts?: { text?: string }[] } };
    statusUpdate?: { status?: { state?: string } };
    task?: { status?: { state?: string } };
  };
  error?: { code?: number };
}

/** One `SendStreamingMessage` with `credential`, in the context `a2a/{contextId}`. */
export async function a2aStream(agentUrl: string, credential: string, message: string, contextId: string): Promise<A2aTiming> {
  const t0 = now();
  const res = await fetch(`${agentUrl}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${credential}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', contextId, parts: [{ text: message }] } },
    }),
  });
  if (res.status !== 200 || !res.body) throw new BenchError(`the A2A route answered ${res.status}`);
  let firstChunk = Number.NaN;
  let text = '';
  let state = '';
  for await (const event of sseEvents(res.body)) {
    const answer = JSON.parse(event.data) as StreamAnswer;
    if (answer.error) throw new BenchError(`the A2A stream failed: JSON-RPC ${answer.error.code}`);
    const chunk = answer.result?.artifactUpdate?.artifact?.parts?.map((p) => p.text ?? '').join('') ?? '';
    if (chunk) {
      if (Number.isNaN(firstChunk)) firstChunk = now() - t0;
      text += chunk;
    }
    state = answer.result?.statusUpdate?.status?.state ?? answer.result?.task?.status?.state ?? state;
  }
  return { firstChunk, whole: now() - t0, text, state };
}

export interface A2aSamples {
  /** First artifact chunk, the context `a2a/{contextId}` made before the round. */
  first: number[];
  whole: number[];
  /** First artifact chunk on a contextId never used (the context created by the request). */
  firstUse: number[];
  /** The reply route's first delta in the same rounds (`agent.replyStream`). */
  replyFirst: number[];
  /** The stand-in's first delta, streamed directly (the floor). */
  directFirst: number[];
  directWhole: number[];
}

/** The section's table: each A2A measure beside the floor of the same rounds, the ratio and the goal. */
export function a2aTable(s: A2aSamples, goal: (g: number, d: number) => string): string {
  const row = (what: string, xs: number[], floor: number[], withGoal: boolean) => {
    const [a, b] = [summarize(xs), summarize(floor)];
    return [
      what,
      ms(a.median),
      ms(a.p99),
      ms(b.median),
      ratio(a.median, b.median),
      ms(a.median - b.median),
      withGoal ? goal(a.median, b.median) : '',
    ];
  };
  return markdownTable(
    ['measure', 'median', 'p99', 'direct median', 'ratio', 'added', 'goal'],
    [
      row('A2A stream: first artifact chunk', s.first, s.directFirst, true),
      row('A2A stream: first artifact chunk, new contextId (context created)', s.firstUse, s.directFirst, true),
      row('A2A stream: whole stream (completed)', s.whole, s.directWhole, false),
      row('for scale: the reply route, first delta (same rounds)', s.replyFirst, s.directFirst, true),
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
}
