/**
 * The Workers runtime's tracing API (`ctx.tracing`, or `tracing` of `cloudflare:workers`) as the
 * reply's spans use it, and what they share. Only `enterSpan`, `startActiveSpan`, `setAttribute`
 * and `end` are used: the pinned workerd (1.20260730) has no more of the span API yet
 * (`setAttributes`, `setStatus`, `recordException` came later).
 */

export type AttributeValue = string | number | boolean;

/** A span of the runtime, as far as the pinned workerd has it. */
export interface RuntimeSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  end(): void;
}

/** The runtime's tracing API, the part used here. */
export interface RuntimeTracing {
  /** A span active for `callback`, ended when it returns or its promise settles. */
  enterSpan<T>(name: string, callback: (span: RuntimeSpan) => T): T;
  /** A span active for `callback`, ended by `span.end()`. */
  startActiveSpan<T>(name: string, callback: (span: RuntimeSpan) => T): T;
}

/** Text attributes (message text, opted in) are cut to this many characters. */
export const MAX_TRACE_TEXT_CHARS = 16_384;

/** `text` cut to `MAX_TRACE_TEXT_CHARS`. */
export function traceText(text: string): string {
  return text.length > MAX_TRACE_TEXT_CHARS ? `${text.slice(0, MAX_TRACE_TEXT_CHARS)}… (cut)` : text;
}

/** Sets the attributes that have a value. */
export function setAttributes(span: RuntimeSpan, attributes: Record<string, AttributeValue | undefined>): void {
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) span.setAttribute(key, value);
}

/** `error.type`: our error's code, else the error's class name. */
export function errorType(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[a-z_]{1,64}$/.test(code)) return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && name) return name.slice(0, 64);
  }
  return '_OTHER';
}

/** `gen_ai.output.messages` of one assistant answer: its text and the tool calls it made. */
export function outputMessages(
  text: string,
  toolCalls: readonly { id: string; name: string; arguments: string }[],
  finishReason: string,
): string {
  const parts = [
    ...(text ? [{ type: 'text', content: text }] : []),
    ...toolCalls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments })),
  ];
  return traceText(JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason }]));
}
