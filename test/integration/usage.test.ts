/**
 * Usage against the real worker, Postgres and the stand-in model scripted to report
 * exact token counts: every model call's input, output and cached input summed exactly, model and
 * tool calls counted, per UTC day, credential (`wallet:0x…`, `key:{id}`) and context; a reply
 * that fails after a model call keeps what that call reported; the report's range and groupings;
 * a stranger and an agent key refused; the typed client's `getUsage` and `agent-gateway usage`;
 * what usage counts as tool calls (those the model asked for) beside the audit trail's entries
 * (every call that ran).
 */
import path from 'node:path';
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, type StandinReply, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { normalizeBaseUrl } from '../../src/cli/gateway-url';
import { saveToken } from '../../src/cli/token-file';
import { createGatewayClient } from '../../src/client';
import { agentSchemaName, provision } from '../../src/storage/agent-storage';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from '../../src/storage/agent-template';
import type { SqlPool } from '../../src/storage/sql-client';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { createKey, withKey } from '../support/agent-keys';
import { expectError } from '../support/http';
import { agentSchema, closePg, quoted, sql, storageRows } from '../support/pg';
import { replyAgent, replyWorker, standinSettings, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let dir = '';
let removeDir: () => Promise<void> = async () => undefined;

/** Scripts by marker: the newest marker in the conversation picks the script (a context holds several). */
const scripts = new Map<string, (req: StandinRequest) => StandinReply | undefined>();
const marked = (script: (req: StandinRequest) => StandinReply | undefined) => {
  const id = crypto.randomUUID();
  scripts.set(id, script);
  return `[case:${id}]`;
};
const afterTool = (req: StandinRequest) => req.body.messages?.at(-1)?.role === 'tool';

beforeAll(async () => {
  [llm, tools] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: (req) => {
        const id = [...JSON.stringify(req.body.messages).matchAll(/\[case:([0-9a-f-]{36})\]/g)].at(-1)?.[1];
        return id ? scripts.get(id)?.(req) : undefined;
      },
    }),
    startSwitchableTools(),
  ]);
  ({ dir, remove: removeDir } = await tempDir('agent-gateway-usage-'));
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close(), closePg(), removeDir()]);
});

const today = () => new Date().toISOString().slice(0, 10);
const usage = (agent: TestAgent, query = '') => agent.call(`/usage${query}`);
/** Counts with what strangers paid (none in these tests): the report's totals, and its days. */
const paid = <T extends object>(c: T) => ({ ...c, paidUsd: '0' });
const counts = (inputTokens: number, outputTokens: number, cachedInputTokens: number, modelCalls: number, toolCalls: number) => ({
  inputTokens,
  outputTokens,
  cachedInputTokens,
  modelCalls,
  toolCalls,
});

describe('usage of replies', () => {
  it('sums exactly what each model call reported, per day, credential and context, readable right after the answer', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'other' } })).status).toBe(200);
    const bridge = await createKey(agent, ['reply']);

    const empty = await usage(agent);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({
      from: today(),
      to: today(),
      groupBy: 'day',
      totals: { ...counts(0, 0, 0, 0, 0), paidUsd: '0' },
      groups: [],
      truncated: false,
    });

    // 1. The owner, one model call, part of its input cached.
    const one = marked(() => ({ text: 'first', usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 60 } }));
    const r1 = await agent.reply({ message: `hello ${one}` });
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
    // Written by the time the answer was sent.
    expect((await usage(agent)).body.totals).toEqual(paid(counts(100, 20, 60, 1, 0)));

    // 2. The owner, a tool call and a second model call, streamed.
    const two = marked((req) =>
      afterTool(req)
        ? { text: 'second', usage: { promptTokens: 250, completionTokens: 40, cachedTokens: 100 } }
        : { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], usage: { promptTokens: 200, completionTokens: 30 } },
    );
    const r2 = await agent.reply({ message: `use a tool ${two}` }, { headers: { accept: 'text/event-stream' } });
    expect(r2.status, r2.text).toBe(200);
    expect(r2.text).toContain('event: done');
    expect((await usage(agent)).body.totals).toEqual(paid(counts(550, 90, 160, 3, 1)));

    // 3. An agent key, on another context; no cached tokens reported.
    const three = marked(() => ({ text: 'third', usage: { promptTokens: 50, completionTokens: 5 } }));
    const r3 = await withKey(agent, bridge.key, `/context/${seg('other')}/reply`, { method: 'POST', json: { message: `hi ${three}` } });
    expect(r3.status, r3.text).toBe(200);

    const totals = paid(counts(600, 95, 160, 4, 1));
    const byDay = await usage(agent, '?groupBy=day');
    expect(byDay.body).toEqual({
      from: today(),
      to: today(),
      groupBy: 'day',
      totals,
      groups: [{ day: today(), ...totals }],
      truncated: false,
    });
    const byCredential = await usage(agent, '?groupBy=credential');
    expect(byCredential.body.totals).toEqual(totals);
    expect(byCredential.body.groups).toEqual(
      [
        { credential: `key:${bridge.id}`, ...counts(50, 5, 0, 1, 0) },
        { credential: `wallet:${agent.owner.address}`, ...counts(550, 90, 160, 3, 1) },
      ].sort((a, b) => (a.credential < b.credential ? -1 : 1)),
    );
    const byContext = await usage(agent, `?groupBy=context&from=${today()}&to=${today()}`);
    expect(byContext.body.totals).toEqual(totals);
    expect(byContext.body.groups).toEqual([
      { contextKey: 'chat', ...counts(550, 90, 160, 3, 1) },
      { contextKey: 'other', ...counts(50, 5, 0, 1, 0) },
    ]);
  });

  it('a reply that fails after a model call keeps what that call reported (and the tool call it made)', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const failing = marked((req) =>
      afterTool(req)
        ? { status: 500 }
        : { toolCalls: [{ name: 'echo', arguments: { text: 'y' } }], usage: { promptTokens: 70, completionTokens: 7 } },
    );
    expectError(await agent.reply({ message: `fail later ${failing}` }), 502, 'llm_unavailable');
    expect((await usage(agent)).body.totals).toEqual(paid(counts(70, 7, 0, 1, 1)));
  });
});

describe('tool calls in usage and in the audit trail', () => {
  it('usage counts the tool calls the model asked for (one that did not run too); the audit trail lists each call that ran (a direct one too); usage and audit print the same', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const connectionId = (reg.body as { id: string }).id;
    // A direct call: it runs, but no model asked for it.
    const direct = await agent.call(`/mcp/connection/${connectionId}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'direct' } },
    });
    expect(direct.status, direct.text).toBe(200);
    // A reply whose model asks for two calls in one step: echo, which runs, and a tool the agent
    // does not have, which does not (the model reads an error result).
    const two = marked((req) =>
      afterTool(req)
        ? { text: 'done', usage: { promptTokens: 20, completionTokens: 2 } }
        : {
            toolCalls: [
              { name: 'echo', arguments: { text: 'in a reply' } },
              { name: 'no_such_tool', arguments: {} },
            ],
            usage: { promptTokens: 10, completionTokens: 1 },
          },
    );
    const reply = await agent.reply({ message: `two calls ${two}` });
    expect(reply.status, reply.text).toBe(200);
    const steps = (reply.body.steps as { tool: string; isError: boolean }[]).map((s) => [s.tool, s.isError]);
    expect(steps.sort()).toEqual([
      ['echo', false],
      ['no_such_tool', true],
    ]);

    // Usage: the two calls the model asked for; the direct call is no model's.
    expect((await usage(agent)).body.totals).toEqual(paid(counts(30, 3, 0, 2, 2)));
    // The audit trail: the two calls that ran, the reply's echo and the direct one.
    const audit = await agent.call('/audit');
    expect(audit.status, audit.text).toBe(200);
    const entries = (audit.body as { entries: { action: string; target: { tool?: string; connectionId?: string }; outcome: string }[] })
      .entries;
    expect(entries.filter((e) => e.action === 'tool.call').map((e) => [e.target.tool, e.target.connectionId, e.outcome])).toEqual([
      ['echo', connectionId, 'ok'],
      ['echo', connectionId, 'ok'],
    ]);

    // The CLI prints the same counts, each help text saying what it counts.
    const env = await cliEnvFor(agent);
    const table = await runCli(['usage'], env);
    expect(table.code, table.output).toBe(0);
    expect(table.stdout.split('\n')[2]!.split(/ +/)).toEqual(['total', '30', '3', '0', '2', '2']);
    const trail = await runCli(['audit'], env);
    expect(trail.code, trail.output).toBe(0);
    expect(trail.stdout.split('\n').filter((line) => / tool\.call /.test(line))).toHaveLength(2);
    const usageHelp = await runCli(['usage', '--help'], env);
    expect(usageHelp.stdout.replace(/\s+/g, ' ')).toContain('the tool calls the model asked for in those replies');
    const auditHelp = await runCli(['audit', '--help'], env);
    expect(auditHelp.stdout.replace(/\s+/g, ' ')).toContain('one tool.call line per tool call that ran, whoever asked for it');
  });
});

describe('the usage report', () => {
  it('covers from..to (UTC days, both included; default today), only days with usage', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const schema = quoted(
      await agentSchema(stack.databaseUrl, { deployment: agent.deployment, collection: agent.collection, tokenId: agent.tokenId }),
    );
    // Provisioned at the current template by the context's creation: its usage table is there.
    await sql(
      stack.databaseUrl,
      `insert into ${schema}.usage (day, context_key, credential, input_tokens, output_tokens, cached_input_tokens, model_calls, tool_calls)
       values ('2026-01-01', 'chat', 'wallet:0xA', 10, 1, 0, 1, 0), ('2026-01-05', 'chat', 'wallet:0xA', 20, 2, 5, 2, 1),
              ('2026-01-05', 'other', 'key:k1', 40, 4, 0, 1, 3), ('2025-12-31', 'chat', 'wallet:0xA', 1000, 100, 0, 9, 9)`,
    );
    expect((await usage(agent)).body.totals).toEqual(paid(counts(0, 0, 0, 0, 0)));
    const january = await usage(agent, '?from=2026-01-01&to=2026-01-31');
    expect(january.status, january.text).toBe(200);
    expect(january.body.totals).toEqual(paid(counts(70, 7, 5, 4, 4)));
    expect(january.body.groups).toEqual([
      { day: '2026-01-01', ...paid(counts(10, 1, 0, 1, 0)) },
      { day: '2026-01-05', ...paid(counts(60, 6, 5, 3, 4)) },
    ]);
    // `from` alone: up to today; `to` alone: that day.
    expect((await usage(agent, '?from=2025-12-31')).body.totals).toEqual(paid(counts(1070, 107, 5, 13, 13)));
    expect((await usage(agent, '?to=2026-01-05&groupBy=credential')).body.groups).toEqual([
      { credential: 'key:k1', ...counts(40, 4, 0, 1, 3) },
      { credential: 'wallet:0xA', ...counts(20, 2, 5, 2, 1) },
    ]);
    // A range of 366 days is allowed.
    expect((await usage(agent, '?from=2025-12-31&to=2026-12-31')).status).toBe(200);
  });

  it('refuses bad days, from after to, a range over 366 days and an unknown groupBy with 400 validation_failed', async () => {
    const agent = await freshAgent(worker.deployment);
    for (const query of [
      '?from=2026-02-30',
      '?to=2026-1-05',
      '?from=yesterday',
      '?from=2026-01-02&to=2026-01-01',
      '?from=2025-01-01&to=2026-01-02',
      '?groupBy=week',
    ]) {
      expectError(await usage(agent, query), 400, 'validation_failed');
    }
    // An agent that never wrote has used nothing (and nothing is created by asking).
    const none = await usage(agent, '?groupBy=context');
    expect(none.body).toMatchObject({ totals: counts(0, 0, 0, 0, 0), groups: [] });
  });

  it("is the owner's: a stranger's token is 403 not_owner, an agent key 403 key_not_allowed", async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const stranger = await freshAgent(worker.deployment);
    const key = await createKey(agent, ['contexts:read', 'contexts:write', 'reply']);
    expectError(await withKey(agent, stranger.token, '/usage'), 403, 'not_owner');
    expectError(await withKey(agent, key.key, '/usage'), 403, 'key_not_allowed');
  });
});

/** The CLI's environment for `agent`: its owner's login saved, the agent named. */
async function cliEnvFor(agent: TestAgent): Promise<NodeJS.ProcessEnv> {
  const baseUrl = normalizeBaseUrl(worker.url);
  const tokenFile = path.join(dir, `token-${agent.tokenId}.json`);
  await saveToken(tokenFile, {
    token: agent.token,
    chainId: stack.testnet.chainId,
    wallet: agent.owner.address,
    baseUrl,
    expiresAt: null,
  });
  return cliEnv({
    HOME: dir,
    AGENT_GATEWAY_URL: baseUrl,
    AGENT_GATEWAY_TOKEN_FILE: tokenFile,
    AGENT_COLLECTION: agent.collection,
    AGENT_TOKEN_ID: agent.tokenId.toString(),
  });
}

/** An agent whose usage table holds January 2026: two days, a wallet and a key. */
async function agentWithJanuary(): Promise<TestAgent> {
  const agent = await replyAgent(worker.deployment, API_KEY);
  const schema = quoted(
    await agentSchema(stack.databaseUrl, { deployment: agent.deployment, collection: agent.collection, tokenId: agent.tokenId }),
  );
  await sql(
    stack.databaseUrl,
    `insert into ${schema}.usage (day, context_key, credential, input_tokens, output_tokens, cached_input_tokens, model_calls, tool_calls)
     values ('2026-01-01', 'chat', 'wallet:0xA', 10, 1, 0, 1, 0), ('2026-01-05', 'chat', 'key:k1', 1200, 300, 5, 2, 1)`,
  );
  return agent;
}

describe('the typed client and agent-gateway usage', () => {
  it('getUsage reads the report; the CLI prints a table by day with a totals line, JSON lines with --json', async () => {
    const agent = await agentWithJanuary();
    const client = createGatewayClient({ baseUrl: worker.url, token: agent.token }).agent(agent.collection, agent.tokenId);
    const report = await client.getUsage({ from: '2026-01-01', to: '2026-01-31', groupBy: 'credential' });
    expect(report.groups.map((g) => g.credential)).toEqual(['key:k1', 'wallet:0xA']);
    expect(report.totals).toEqual(paid(counts(1210, 301, 5, 3, 1)));

    const env = await cliEnvFor(agent);
    const table = await runCli(['usage', '--from', '2026-01-01', '--to', '2026-01-31'], env);
    expect(table.code, table.output).toBe(0);
    expect(table.stdout.split('\n')).toEqual([
      'day         input  output  cached  model calls  tool calls',
      '2026-01-01     10       1       0            1           0',
      '2026-01-05   1200     300       5            2           1',
      'total        1210     301       5            3           1',
      '',
    ]);
    expect(table.stderr).toContain('usage: 2026-01-01 .. 2026-01-31 (UTC), 2 days with usage');

    const lines = await runCli(['usage', '--from', '2026-01-01', '--to', '2026-01-31', '--group-by', 'context', '--json'], env);
    expect(lines.code, lines.output).toBe(0);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { contextKey: 'chat', ...counts(1210, 301, 5, 3, 1) },
      { totals: paid(counts(1210, 301, 5, 3, 1)), from: '2026-01-01', to: '2026-01-31' },
    ]);

    const bad = await runCli(['usage', '--group-by', 'week'], env);
    expect(bad.code, bad.output).toBe(2);
    expect(bad.stderr).toContain('--group-by must be one of day, credential, context');
    const badDay = await runCli(['usage', '--from', '2026-02-30'], env);
    expect(badDay.code, badDay.output).toBe(2);

    const created = await runCli(['keys', 'create', '--name', 'capped', '--scope', 'reply', '--tokens-per-day', '5000', '--json'], env);
    expect(created.code, created.output).toBe(0);
    expect(JSON.parse(created.stdout).limits).toEqual({ tokensPerDay: 5000 });
  });
});

describe('an agent stored before usage existed', () => {
  it('is upgraded on its next request: its report reads none, and its next reply is counted', async () => {
    const agent = await freshAgent(worker.deployment);
    const identity = { chainId: agent.deployment.chainId, collection: getAddress(agent.collection), tokenId: agent.tokenId };
    const schema = await agentSchemaName(identity);
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    try {
      await provision(
        pool as unknown as SqlPool,
        identity,
        schema,
        AGENT_TEMPLATE.filter((step) => step.version < 5),
      );
      await pool.query(`insert into ${schema.quoted}.contexts (key) values ('chat')`);
    } finally {
      await pool.end();
    }
    const ref = { deployment: agent.deployment, collection: agent.collection, tokenId: agent.tokenId };
    expect((await storageRows(stack.databaseUrl, ref))[0]?.template_version).toBeLessThan(5);
    const settings = standinSettings({ apiKey: API_KEY });
    expect((await agent.call('/llm/settings', { method: 'POST', json: settings })).status).toBe(200);

    const none = await usage(agent);
    expect(none.status, none.text).toBe(200);
    expect(none.body.totals).toEqual(paid(counts(0, 0, 0, 0, 0)));
    expect((await storageRows(stack.databaseUrl, ref))[0]?.template_version).toBe(TEMPLATE_VERSION);
    const costly = marked(() => ({ text: 'counted', usage: { promptTokens: 9, completionTokens: 3 } }));
    expect((await agent.call(`/context/${seg('chat')}/reply`, { method: 'POST', json: { message: costly } })).status).toBe(200);
    expect((await usage(agent)).body.totals).toEqual(paid(counts(9, 3, 0, 1, 0)));
  });
});
