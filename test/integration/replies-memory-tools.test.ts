/**
 * Memory tools in replies (issue 23): `memory_search` and `memory_read`, offered
 * beside the agent's MCP tools through one seam (src/tools/), against the stand-in
 * model (scripts/lib/standin-llm.ts) behind `https://llm.tools.example`. The model finds what a
 * pipeline hydrated in another context, reads a context newest first and pages back, gets each
 * text verbatim within 16 KiB; the tools follow the request's flag and the caller's rights, keep
 * their names against an MCP tool of the same name, and fail as error results the model reads.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contentText, type StandinLlm, type StandinReply, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { parseSse, replyAgent, replyWorker, scriptedCases } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let namesake: Awaited<ReturnType<typeof startNamesakeTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

const requestsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));
const offeredNames = (req: StandinRequest | undefined) => (req?.body.tools ?? []).map((t) => t.function.name).sort();
/** The tool results the model has read so far, oldest first. */
const resultsOf = (req: StandinRequest) => (req.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => contentText(m.content));

/** Steps in tool-name order (calls of one step finish in any order). */
const byTool = (steps: { tool: string }[]) => [...steps].sort((a, b) => a.tool.localeCompare(b.tool));

/** A plain JSON-RPC tool server whose tools take built-in names (`memory_search`, `ask`, `memory_append`; each echoes its `text`). */
async function startNamesakeTools() {
  const tools = ['memory_search', 'ask', 'memory_append'].map((name) => ({
    name,
    description: 'A tool server of its own that happens to use the name',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }));
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: any };
      const send = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, ...(value as object) }));
      };
      if (body.method === 'tools/list') return send({ result: { tools } });
      if (body.method === 'tools/call') {
        return send({ result: { content: [{ type: 'text', text: `namesake: ${body.params?.arguments?.text}` }] } });
      }
      return send({ error: { code: -32601, message: 'Method not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

beforeAll(async () => {
  [llm, namesake] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: cases.script,
    }),
    startNamesakeTools(),
  ]);
  worker = await replyWorker(stack, llm, { namesake: namesake.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), namesake?.close()]);
});

const agent = () => replyAgent(worker.deployment, API_KEY);
type Who = Awaited<ReturnType<typeof agent>>;

/** Creates context `key` with `messages` (user role), oldest first; their stored ids. */
async function hydrate(who: Who, key: string, messages: string[]): Promise<number[]> {
  expect((await who.call('/context', { method: 'POST', json: { key } })).status).toBe(200);
  const res = await who.call(`/context/${seg(key)}/messages`, {
    method: 'POST',
    json: { messages: messages.map((message) => ({ role: 'user', message })) },
  });
  expect(res.status, res.text).toBe(200);
  return (res.body.messages as { id: number }[]).map((m) => m.id);
}

/** A model that makes `calls` (one step each, in order), then answers with the results it read, joined. */
function callsThenAnswer(calls: { name: string; arguments: Record<string, unknown> }[][]) {
  return (req: StandinRequest): StandinReply => {
    const step = (req.body.messages ?? []).filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    const next = calls[step];
    return next ? { toolCalls: next } : { text: `read: ${resultsOf(req).join(' | ')}` };
  };
}

describe('memory_search', () => {
  it('finds a note hydrated in another context; the model answers with its text; steps and events list connectionId null', async () => {
    const who = await agent();
    const note = `The customer's gate code is QX-${crypto.randomUUID().slice(0, 8)}, use the side door.`;
    const [, noteId] = await hydrate(who, 'customer:42/notes', ['Weather was fine.', note]);
    const marker = scripted(callsThenAnswer([[{ name: 'memory_search', arguments: { query: 'gate code' } }]]));

    const res = await who.reply({ message: `How do I get in? ${marker}` }, { headers: { accept: 'text/event-stream' } });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const events = parseSse(res.text);
    const done = events.find((e) => e.event === 'done')?.data;
    expect(done.reply.message).toContain(note);
    expect(done.steps).toEqual([
      expect.objectContaining({ tool: 'memory_search', connectionId: null, arguments: { query: 'gate code' }, isError: false }),
    ]);
    expect(events.find((e) => e.event === 'tool_call')?.data).toEqual({
      tool: 'memory_search',
      connectionId: null,
      arguments: { query: 'gate code' },
    });
    const result = events.find((e) => e.event === 'tool_result')?.data;
    expect(result).toMatchObject({ tool: 'memory_search', connectionId: null, isError: false });
    const hits = JSON.parse(result.content).hits as { contextKey: string; id: number; message: string }[];
    expect(hits).toEqual([expect.objectContaining({ contextKey: 'customer:42/notes', id: noteId, message: note })]);
    // Offered beside nothing else (no tool server registered), from the first request on.
    const [first] = requestsWith(marker);
    expect(offeredNames(first)).toEqual(['memory_read', 'memory_search']);
  });

  it('contextKey narrows the search to one context', async () => {
    const who = await agent();
    const word = `zephyr${crypto.randomUUID().slice(0, 6)}`;
    await hydrate(who, 'a-notes', [`alpha ${word}`]);
    await hydrate(who, 'b-notes', [`beta ${word}`]);
    const marker = scripted(callsThenAnswer([[{ name: 'memory_search', arguments: { query: word, contextKey: 'b-notes' } }]]));
    const res = await who.reply({ message: `look ${marker}` });
    expect(res.status, res.text).toBe(200);
    const [, second] = requestsWith(marker);
    const hits = JSON.parse(resultsOf(second!)[0]!).hits as { contextKey: string; message: string }[];
    expect(hits).toEqual([expect.objectContaining({ contextKey: 'b-notes', message: `beta ${word}` })]);
  });
});

describe('memory_read', () => {
  it('reads a context newest first and pages back with beforeId', async () => {
    const who = await agent();
    const texts = ['m1', 'm2', 'm3', 'm4', 'm5'].map((t) => `${t} of the log`);
    const ids = await hydrate(who, 'log', texts);
    const marker = scripted((req) => {
      const read = resultsOf(req).map((r) => JSON.parse(r) as { nextBeforeId: number | null });
      if (read.length === 0) return { toolCalls: [{ name: 'memory_read', arguments: { contextKey: 'log', limit: 2 } }] };
      if (read.length === 1) {
        return { toolCalls: [{ name: 'memory_read', arguments: { contextKey: 'log', limit: 2, beforeId: read[0]!.nextBeforeId! } }] };
      }
      return { text: 'read twice' };
    });
    const res = await who.reply({ message: `history ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps.map((s: { tool: string; connectionId: string | null }) => [s.tool, s.connectionId])).toEqual([
      ['memory_read', null],
      ['memory_read', null],
    ]);
    const last = requestsWith(marker).at(-1)!;
    const [page1, page2] = resultsOf(last).map((r) => JSON.parse(r));
    expect(page1.messages.map((m: { id: number; message: string }) => [m.id, m.message])).toEqual([
      [ids[4], texts[4]],
      [ids[3], texts[3]],
    ]);
    expect(page1).toMatchObject({ contextKey: 'log', nextBeforeId: ids[3], truncated: false });
    expect(page2.messages.map((m: { message: string }) => m.message)).toEqual([texts[2], texts[1]]);
    expect(page2.nextBeforeId).toBe(ids[1]);
  });

  it('keeps a result within 16 KiB: whole messages while they fit, the next one cut at its end, never rewritten', async () => {
    const who = await agent();
    const small = 'a short note';
    const big = `${'é'.repeat(9_000)}𝄞 tail`; // 18 KB of UTF-8: does not fit whole
    const middle = 'm'.repeat(3_000);
    const ids = await hydrate(who, 'big', [big, small, middle]);
    const marker = scripted(callsThenAnswer([[{ name: 'memory_read', arguments: { contextKey: 'big' } }]]));
    const res = await who.reply({ message: `read big ${marker}` }, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const content = parseSse(res.text).find((e) => e.event === 'tool_result')?.data.content as string;
    expect(new TextEncoder().encode(content).length).toBeLessThanOrEqual(16 * 1024);
    const page = JSON.parse(content);
    expect(page.truncated).toBe(true);
    expect(page.messages.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(page.messages[0].message).toBe(middle);
    expect(page.messages[1].message).toBe(small);
    const cut = page.messages[2];
    expect(cut.cut).toBe(true);
    expect(cut.message.length).toBeGreaterThan(5_000);
    expect(big.startsWith(cut.message)).toBe(true);
    // A cut page reads on past the cut message.
    expect(page.nextBeforeId).toBe(ids[0]);
  });

  it('a missing context, or arguments out of their rules, is an error result the model reads, not a failed reply', async () => {
    const who = await agent();
    const marker = scripted(
      callsThenAnswer([
        [
          { name: 'memory_read', arguments: { contextKey: 'no-such-context' } },
          { name: 'memory_search', arguments: { query: '   ' } },
        ],
      ]),
    );
    const res = await who.reply({ message: `read missing ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(byTool(res.body.steps)).toEqual([
      expect.objectContaining({ tool: 'memory_read', connectionId: null, isError: true }),
      expect.objectContaining({ tool: 'memory_search', connectionId: null, isError: true }),
    ]);
    expect(res.body.reply.message).toContain('context_not_found');
    expect(res.body.reply.message).toContain('validation_failed');
  });
});

describe('which replies are offered memory tools', () => {
  it('memoryTools: false offers neither, and a call of one anyway is a tool the agent does not have', async () => {
    const who = await agent();
    const marker = scripted(callsThenAnswer([[{ name: 'memory_search', arguments: { query: 'anything' } }]]));
    const res = await who.reply({ message: `no memory ${marker}`, memoryTools: false });
    expect(res.status, res.text).toBe(200);
    expect(offeredNames(requestsWith(marker)[0])).toEqual([]);
    expect(res.body.steps).toEqual([expect.objectContaining({ tool: 'memory_search', connectionId: null, isError: true })]);
    expect(res.body.reply.message).toContain("tool 'memory_search'");
  });

  it('tools: false offers no tools at all, memory tools included', async () => {
    const who = await agent();
    const marker = scripted(() => ({ text: 'plain' }));
    expect((await who.reply({ message: `plain ${marker}`, tools: false })).status).toBe(200);
    expect(offeredNames(requestsWith(marker)[0])).toEqual([]);
  });

  it("with the caller's rights: a reply-only key gets no memory tools, a key with contexts:read and reply does", async () => {
    const who = await agent();
    const replyOnly = await createKey(who, ['reply']);
    const reader = await createKey(who, ['contexts:read', 'reply']);
    const path = `/context/${seg('chat')}/reply`;
    const m1 = scripted(callsThenAnswer([[{ name: 'memory_read', arguments: { contextKey: 'chat' } }]]));
    const refused = await withKey(who, replyOnly.key, path, { method: 'POST', json: { message: `key ${m1}` } });
    expect(refused.status, refused.text).toBe(200);
    expect(offeredNames(requestsWith(m1)[0])).toEqual([]);
    expect(refused.body.steps).toEqual([expect.objectContaining({ tool: 'memory_read', isError: true })]);
    expect(refused.body.reply.message).toContain("tool 'memory_read'");

    const m2 = scripted(callsThenAnswer([[{ name: 'memory_read', arguments: { contextKey: 'chat' } }]]));
    const allowed = await withKey(who, reader.key, path, { method: 'POST', json: { message: `key ${m2}` } });
    expect(allowed.status, allowed.text).toBe(200);
    expect(offeredNames(requestsWith(m2)[0])).toEqual(['memory_read', 'memory_search']);
    expect(allowed.body.steps).toEqual([expect.objectContaining({ tool: 'memory_read', connectionId: null, isError: false })]);
    expect(allowed.body.reply.message).toContain(`key ${m2}`);
  });
});

describe('reserved names', () => {
  it('an MCP tool named memory_search, ask or memory_append is offered as <connection>_<name> in a reply and on the MCP server; both work', async () => {
    const who = await agent();
    const reg = await who.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('namesake', namesake.url), name: 'notes', auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const note = `parcel ${crypto.randomUUID()}`;
    await hydrate(who, 'deliveries', [note]);
    const marker = scripted(
      callsThenAnswer([
        [
          { name: 'memory_search', arguments: { query: note.split(' ')[1]! } },
          { name: 'notes_memory_search', arguments: { text: 'ping' } },
        ],
      ]),
    );
    const res = await who.reply({ message: `both ${marker}` });
    expect(res.status, res.text).toBe(200);
    // Every built-in name is reserved in a reply too (`ask` and `memory_append` are offered on the MCP server only).
    const renamed = ['notes_ask', 'notes_memory_append', 'notes_memory_search'];
    expect(offeredNames(requestsWith(marker)[0])).toEqual(['memory_read', 'memory_search', ...renamed]);
    expect(byTool(res.body.steps)).toEqual([
      expect.objectContaining({ tool: 'memory_search', connectionId: null, isError: false }),
      expect.objectContaining({ tool: 'notes_memory_search', connectionId: reg.body.id, isError: false }),
    ]);
    expect(res.body.reply.message).toContain(note);
    expect(res.body.reply.message).toContain('namesake: ping');

    // The names stay reserved when memory tools are off: the MCP tool keeps its model-facing name.
    const off = scripted(() => ({ text: 'off' }));
    expect((await who.reply({ message: `off ${off}`, memoryTools: false })).status).toBe(200);
    expect(offeredNames(requestsWith(off)[0])).toEqual(renamed);

    // The agent's MCP server names them the same way: one catalog for both.
    const listed = await who.call('/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(listed.status, listed.text).toBe(200);
    const served = (listed.body.result.tools as { name: string }[]).map((t) => t.name).sort();
    expect(served).toEqual(['ask', 'memory_append', 'memory_read', 'memory_search', ...renamed].sort());
  });
});
