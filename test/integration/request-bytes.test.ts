/**
 * Bytes that cannot be stored are refused with 400 and a stable code, never a 500 from the
 * database and never silently replaced: NUL anywhere (`%00` in a path key or in `search`,
 * `\u0000` in a message or a JSON key), invalid UTF-8 in a JSON body, a lone surrogate (`\ud800`) in
 * a JSON string or key, broken percent-encoding.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { deployment, expectError } from '../support/http';

const testnet = deployment('testnet');
let agent: TestAgent;
const key = 'bytes:kept';

const rawJson = (bytes: Uint8Array) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });

beforeAll(async () => {
  agent = await freshAgent(testnet);
  expect((await agent.call('/context', { method: 'POST', json: { key } })).status).toBe(200);
  expect((await agent.call(`/context/${seg(key)}/message`, { method: 'POST', json: { role: 'user', message: 'kept' } })).status).toBe(200);
});

async function storedTexts(): Promise<string[]> {
  const res = await agent.call<{ messages: { message: string }[] }>(`/context/${seg(key)}/messages?limit=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.messages.map((m) => m.message);
}

describe('a NUL is refused with 400 nul_character', () => {
  it.each([
    ['in a path key (read)', () => agent.call('/context/ab%00cd/messages')],
    ['in a path key (append)', () => agent.call('/context/ab%00cd/message', { method: 'POST', json: { role: 'user', message: 'hello' } })],
    ['in search', () => agent.call('/contexts/keys?search=a%00b')],
    ['in a query value the route does not read', () => agent.call('/contexts/keys?x=%00')],
    [
      'in a message',
      () => agent.call(`/context/${seg(key)}/message`, { method: 'POST', json: { role: 'user', message: 'before\u0000after' } }),
    ],
    [
      'in a batch message',
      () =>
        agent.call(`/context/${seg(key)}/messages`, {
          method: 'POST',
          json: {
            messages: [
              { role: 'user', message: 'ok ok' },
              { role: 'user', message: 'nul\u0000' },
            ],
          },
        }),
    ],
    ['in a JSON property name', () => agent.call('/context', { method: 'POST', json: { key: 'bytes:other', 'x\u0000': 1 } })],
  ])('%s', async (_, send) => {
    const res = await send();
    expectError(res, 400, 'nul_character');
  });
});

describe('bytes that do not decode are refused with 400 invalid_encoding', () => {
  it('invalid UTF-8 in a JSON body (raw \\xff\\xfe) is not stored as U+FFFD', async () => {
    const before = await storedTexts();
    const body = new Uint8Array([
      ...new TextEncoder().encode('{"role":"user","message":"ab'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('cd"}'),
    ]);
    expectError(await agent.call(`/context/${seg(key)}/message`, rawJson(body)), 400, 'invalid_encoding');
    const batch = new Uint8Array([
      ...new TextEncoder().encode('{"messages":[{"role":"user","message":"x'),
      0xc3,
      ...new TextEncoder().encode('y"}]}'),
    ]);
    expectError(await agent.call(`/context/${seg(key)}/messages`, rawJson(batch)), 400, 'invalid_encoding');
    expect(await storedTexts()).toEqual(before);
    expect(before.join('')).not.toContain('\ufffd');
  });

  it.each([
    ['broken percent-encoding in a key (read)', '/context/ab%zzcd/messages'],
    ['a lone % at the end of a key', '/context/abcd%/messages'],
    ['percent-encoded bytes that are not UTF-8', '/context/ab%ffcd/messages'],
    ['broken percent-encoding in search', '/contexts/keys?search=a%zz'],
  ])('%s', async (_, path) => {
    expectError(await agent.call(path), 400, 'invalid_encoding');
  });

  it('broken percent-encoding in the key of an append stores nothing', async () => {
    const before = await storedTexts();
    expectError(
      await agent.call('/context/ab%zzcd/message', { method: 'POST', json: { role: 'user', message: 'hello' } }),
      400,
      'invalid_encoding',
    );
    expect(await storedTexts()).toEqual(before);
  });

  it.each([
    ['in a string value (connection name)', '{"url":"https://tools.example.com/mcp","name":"\\ud800","auth":{"type":"none"}}'],
    ['in a property name', '{"url":"https://tools.example.com/mcp","auth":{"type":"none"},"x\\udc00y":1}'],
    ['nested in an array', '{"url":"https://tools.example.com/mcp","auth":{"type":"none"},"extra":[["ok","a\\ud83d"]]}'],
  ])('a lone surrogate %s of a JSON body: 400 invalid_encoding, nothing registered', async (_, text) => {
    const res = await agent.call('/mcp/connection', rawJson(new TextEncoder().encode(text)));
    expectError(res, 400, 'invalid_encoding');
    expect(res.body.error.details).toEqual({ where: 'body' });
    const list = await agent.call<{ connections: unknown[] }>('/mcp/connections');
    expect(list.body.connections).toEqual([]);
  });

  it('a well-formed surrogate pair (\\ud83d\\ude00) in a JSON body still passes the byte checks', async () => {
    const res = await agent.call(
      `/context/${seg(key)}/message`,
      rawJson(new TextEncoder().encode('{"role":"user","message":"smile \\ud83d\\ude00"}')),
    );
    expect(res.status, res.text).toBe(200);
    expect(await storedTexts()).toContain('smile \u{1F600}');
  });

  it('a well-formed percent-encoded key still works', async () => {
    const res = await agent.call(`/context/${seg(key)}/messages`);
    expect(res.status, res.text).toBe(200);
  });
});
