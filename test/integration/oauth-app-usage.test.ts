/**
 * An OAuth app's calls are metered and audited as the app acting for the wallet (issue 33): a
 * reply it asks for through the agent's MCP server (`ask`) is counted under
 * `oauth:{wallet}:{clientId}`, apart from the owner's own `wallet:0x…`, and a `memory_append` it
 * makes is an audit entry whose actor is `{ wallet, clientId }`; against the stand-in model in workerd.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { oauthTokens } from '../support/oauth';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

describe("an OAuth app's usage", () => {
  it('is counted as oauth:{wallet}:{clientId}, not as the wallet itself', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const { clientId, tokens } = await oauthTokens(worker.deployment, agent);
    const asked = await mcpRpc(
      mcpUrl(worker.url, agent),
      tokens.access_token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { message: 'hello from an app' } } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(asked.status, asked.text).toBe(200);
    expect(asked.text).toContain('stand-in model');
    const usage = await agent.call<any>('/usage?groupBy=credential');
    expect(usage.status, usage.text).toBe(200);
    const credentials = usage.body.groups.map((g: { credential: string }) => g.credential);
    expect(credentials, usage.text).toContain(`oauth:${agent.owner.address}:${clientId}`);
    expect(credentials).not.toContain(`wallet:${agent.owner.address}`);
  });
});

describe("an OAuth app's audited calls", () => {
  it('name the app and the wallet it acts for: actor { wallet, clientId }', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const { clientId, tokens } = await oauthTokens(worker.deployment, agent);
    const appended = await mcpRpc(
      mcpUrl(worker.url, agent),
      tokens.access_token,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'memory_append', arguments: { contextKey: 'notes', message: 'from the app' } },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(appended.status, appended.text).toBe(200);
    // A tool call's entry is written after its answer: read until it is there (5 s at most).
    let audit = await agent.call<any>('/audit');
    for (let i = 0; i < 50 && !audit.body.entries.some((e: { action: string }) => e.action === 'tool.call'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      audit = await agent.call<any>('/audit');
    }
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.entries.find((e: { action: string }) => e.action === 'tool.call')).toMatchObject({
      actor: { wallet: agent.owner.address.toLowerCase(), clientId },
      action: 'tool.call',
      target: { tool: 'memory_append' },
      outcome: 'ok',
    });
    // The approval itself was the owner's own act.
    const approval = audit.body.entries.find((e: { action: string }) => e.action === 'oauth_grant.approve');
    expect(approval.actor).toEqual({ wallet: agent.owner.address.toLowerCase() });
  });
});
