/**
 * Hostile A2A requests for the fuzz test of the agent's A2A routes (test/integration/fuzz-a2a.test.ts):
 * JSON-RPC bodies with every wrong envelope (jsonrpc, ids of every type, methods the server does not
 * serve, A2A 0.3's method names), messages with non-text parts, bad context and task ids, huge and
 * deeply nested params, raw bodies that are not JSON; and the card's path parameters.
 */
import fc from 'fast-check';

/** The JSON-RPC and A2A error codes an answer may carry: JSON-RPC's own and A2A's -32001 … -32009. */
export const A2A_ERROR_CODES = new Set([
  -32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009,
]);

export const CREDENTIALS = [
  'owner',
  'owner',
  'key',
  'key',
  'keyWithoutReply',
  'stranger',
  'otherChain',
  'forged',
  'garbage',
  'none',
] as const;
export type Credential = (typeof CREDENTIALS)[number];

export const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../x',
    'a/b',
    'a2a/x',
    '%00',
    '\u0000',
    '\ud800',
    '\u202e',
    '😀',
    'x'.repeat(300),
    'has space',
    'é',
    'ctx-1',
  ),
);

/** Any JSON value, a few edges among them. */
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, true, -1, 0, 1e308, 2 ** 53 + 1, '', [], {}));

/** A JSON-RPC id of every type, or none. */
const anyId = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(null, true, {}, [1], 2 ** 53 + 1, -0, 'r1'),
  fc.constant(undefined),
);

const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'ListTasks',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'sendMessage',
  '',
];
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask') },
  { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
  fc.string(),
  anyJson,
);

const part = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom({ text: 'hello there' }, { text: 'what did we decide?', mediaType: 'text/plain' }) },
  { weight: 2, arbitrary: hostileString.map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.constant({ text: 'a'.repeat(300 * 1024) }) },
  fc.record({ url: fc.webUrl(), mediaType: fc.constantFrom('image/png', 'text/plain', '') }),
  fc.record({ raw: fc.base64String({ maxLength: 40 }) }),
  fc.record({ data: anyJson }),
  fc.record({ kind: fc.constantFrom('text', 'file', 'data'), text: hostileString }),
  fc.record({ text: anyJson }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  // Not part objects at all (once answered -32603 with the runtime's message).
  fc.constantFrom(null, 'x', 1, true, [], [{ text: 'x' }]),
);

/** Params nested `depth` objects deep. */
const nested = fc.integer({ min: 50, max: 3_000 }).map((depth) => {
  let value: unknown = { text: 'deep' };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});

/**
 * The arbitraries that need the ids of a run (contexts and tasks made in its setup): a JSON-RPC
 * body as an object (sent as JSON) or a raw string, its headers and its credential.
 */
export function a2aRequests(known: { contextIds: string[]; taskIds: () => string[] }) {
  const taskId = fc.oneof(
    fc.nat().map((i) => {
      const ids = known.taskIds();
      return ids[i % Math.max(1, ids.length)] ?? 'none';
    }),
    fc.uuid(),
    hostileString,
    anyJson,
  );
  const contextId = fc.oneof(fc.constant(undefined), fc.constantFrom(...known.contextIds), fc.uuid(), hostileString, anyJson);
  const message = fc.record(
    {
      messageId: fc.oneof(fc.uuid(), fc.uuid(), hostileString, anyJson),
      role: fc.constantFrom('ROLE_USER', 'ROLE_USER', 'ROLE_AGENT', 'user', 1, 'x', null),
      parts: fc.oneof(
        { weight: 5, arbitrary: fc.array(part, { minLength: 1, maxLength: 3 }) },
        fc.array(part, { maxLength: 0 }),
        fc.constantFrom(null, 'x', 1, {}, true),
      ),
      contextId,
      taskId: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, taskId),
      referenceTaskIds: fc.oneof(fc.constant(undefined), fc.array(taskId, { maxLength: 2 })),
      metadata: fc.oneof(fc.constant(undefined), anyJson),
      kind: fc.constantFrom(undefined, 'message'),
    },
    { requiredKeys: ['messageId', 'parts'] },
  );
  const params = fc.oneof(
    { weight: 6, arbitrary: fc.record({ message }, { requiredKeys: ['message'] }) },
    { weight: 1, arbitrary: fc.record({ message, configuration: anyJson, metadata: anyJson, tenant: anyJson }, { requiredKeys: [] }) },
    { weight: 3, arbitrary: fc.record({ id: taskId, historyLength: fc.oneof(fc.constant(undefined), anyJson) }, { requiredKeys: ['id'] }) },
    fc.record({ taskId, url: fc.webUrl() }, { requiredKeys: [] }),
    nested,
    anyJson,
  );
  const envelope = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', 2, 2.0, null, '2.0 '), anyJson),
      id: anyId,
      method,
      params,
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  const raw = fc.oneof(
    fc.constantFrom('', '{', '{"jsonrpc": "2.0", "method": ', '[1, 2', 'null', '[]', '"x"', '\ufeff{}'),
    fc.integer({ min: 60, max: 5_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.array(envelope, { minLength: 1, maxLength: 3 }).map((batch) => JSON.stringify(batch)),
    fc.string({ maxLength: 80 }),
  );
  return fc.record({
    body: fc.oneof({ weight: 9, arbitrary: envelope }, raw),
    auth: fc.oneof({ weight: 4, arbitrary: fc.constantFrom<Credential>('owner', 'key') }, fc.constantFrom(...CREDENTIALS)),
    version: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(undefined, '1.0') }, fc.constantFrom('0.3', '', '1.0, 0.3', 'x')),
    accept: fc.constantFrom(undefined, 'application/json', 'text/event-stream', '*/*'),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
      fc.constantFrom('text/plain', undefined),
    ),
  });
}

/** Hostile path parameters for `GET /agent/{c}/{t}/.well-known/agent-card.json` (and the A2A route). */
export function agentPathParams(real: { collection: string; tokenId: string }) {
  return fc.record({
    collection: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(real.collection, real.collection.toLowerCase()) },
      fc.constantFrom('0x0', `0x${'f'.repeat(40)}`, `0x${'0'.repeat(40)}`, `${real.collection}00`),
      hostileString,
    ),
    tokenId: fc.oneof(
      { weight: 3, arbitrary: fc.constant(real.tokenId) },
      fc.constantFrom('0', '-1', '01', '1e3', '0x1', `${2n ** 256n}`, '99999999999999999999999'),
      hostileString,
    ),
    encode: fc.boolean(),
    suffix: fc.constantFrom('', '', '', '/', '?x=1', '%2F', '/..'),
  });
}
