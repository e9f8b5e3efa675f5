/**
 * The reply's head start (issue 24's critical path): a reply sets its loop going while its lease
 * and message are still being stored, so the AI SDK's set-up and the first request's fitting
 * overlap the database's round trip; the model call itself waits for the lease (lease-gate.ts), so
 * a refused reply never reaches the provider. Until that store succeeds, nothing of the reply
 * leaves the gateway: its events wait in a buffer (the caller attaches where they go once it has
 * the answer's status) and its tools wait before they run (`ready` of tools.ts). A refused or
 * failed store aborts the loop before its model call.
 */
import type { LoopEvents } from './loop';

/** Events kept in order until `attach` names where they go, then passed on as they come. */
export function bufferedEvents(): LoopEvents & { attach(sink: LoopEvents): void } {
  let sink: LoopEvents | undefined;
  const waiting: ((to: LoopEvents) => void)[] = [];
  const pass = (send: (to: LoopEvents) => void) => (sink ? send(sink) : waiting.push(send));
  return {
    delta: (text) => pass((to) => to.delta(text)),
    toolCall: (event) => pass((to) => to.toolCall(event)),
    toolResult: (event) => pass((to) => to.toolResult(event)),
    attach(to) {
      sink = to;
      for (const send of waiting.splice(0)) send(to);
    },
  };
}
