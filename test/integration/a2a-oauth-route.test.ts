/**
 * OAuth and the guide's code on the agent's A2A route itself (POST …/a2a), in workerd against real
 * KV, Postgres, anvil and the stand-in model: a token issued for the agent's A2A URL is taken there
 * (by @a2a-js/sdk's own client), the same agent's MCP token and another agent's A2A token are 401
 * `invalid_token`; and the dozen lines of "Call the agent from another agent" (docs/tools.md) run as
 * written, against a real agent, with an agent key of scope `reply`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TaskState } from '@a2a-js/sdk';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import type { TestAgent } from '../support/agent';
import { a2aClient, PROFILE, rpc, sendParams, userMessage } from '../support/a2a-server';
import { createKey } from '../support/agent-keys';
import { REPO_ROOT } from '../support/cli';
import { expectError } from '../support/http';
import { a2aUrl, oauthTokens } from '../support/oauth';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY, script: scriptedCases().script });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

async function a2aAgent(): Promise<TestAgent> {
  const agent = await replyAgent(worker.deployment, API_KEY);
  const res = await agent.call('/profile', { method: 'PUT', json: PROFILE });
  expect(res.status, res.text).toBe(200);
  return agent;
}

const getTask = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: crypto.randomUUID() } };

describe('an OAuth access token on POST …/a2a', () => {
  it("is taken when issued for this agent's A2A URL: @a2a-js/sdk's client sends a message with it", async () => {
    const agent = await a2aAgent();
    const { tokens } = await oauthTokens(worker.deployment, agent, {
      resource: a2aUrl(worker.deployment, agent.collection, agent.tokenId),
    });
    const client = await a2aClient(agent, tokens.access_token);
    const task = await client.sendMessage(sendParams(userMessage('hello over OAuth')));
    if (!('status' in task)) throw new Error('expected a task');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The lower-case spelling of the path names the same resource.
    const lower = await rpc({ ...agent, collection: agent.collection.toLowerCase() }, tokens.access_token, getTask);
    expect(lower.status, lower.text).toBe(200);
  });

  it("refuses the same agent's MCP token, and another agent's A2A token: 401 invalid_token naming the A2A URL's metadata", async () => {
    const agent = await a2aAgent();
    const other = await a2aAgent();
    const mcp = await oauthTokens(worker.deployment, agent);
    const res = await rpc(agent, mcp.tokens.access_token, getTask);
    expectError(res, 401, 'invalid_token');
    const origin = new URL(worker.deployment.baseUrl).origin;
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/agent/${getAddress(agent.collection)}/${agent.tokenId}/a2a"`,
    );
    const foreign = await oauthTokens(worker.deployment, other, { resource: a2aUrl(worker.deployment, other.collection, other.tokenId) });
    expectError(await rpc(agent, foreign.tokens.access_token, getTask), 401, 'invalid_token');
    // Its own agent takes it.
    expect((await rpc(other, foreign.tokens.access_token, getTask)).status).toBe(200);
  });
  it("keeps each OAuth app's tasks its own: another app of the same wallet, or the wallet's token, is -32001 on GetTask and CancelTask", async () => {
    const agent = await a2aAgent();
    const resource = a2aUrl(worker.deployment, agent.collection, agent.tokenId);
    const a = await oauthTokens(worker.deployment, agent, { resource });
    const b = await oauthTokens(worker.deployment, agent, { resource });
    expect(a.clientId).not.toBe(b.clientId);
    const sent = await rpc(agent, a.tokens.access_token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'mine' }] } },
    });
    const id = sent.body.result?.task?.id;
    expect(id, sent.text).toBeTypeOf('string');
    for (const credential of [b.tokens.access_token, agent.token]) {
      for (const method of ['GetTask', 'CancelTask']) {
        const res = await rpc(agent, credential, { jsonrpc: '2.0', id: 2, method, params: { id } });
        expect(res.status, res.text).toBe(200);
        expect(res.body.error?.code, `${method}: ${res.text}`).toBe(-32001);
      }
    }
    const mine = await rpc(agent, a.tokens.access_token, { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id } });
    expect(mine.body.result?.id, mine.text).toBe(id);
  });
});

/** The TypeScript block of the guide's section, as a reader copies it. */
async function guideSnippet(): Promise<string> {
  const guide = await readFile(path.join(REPO_ROOT, 'docs/tools.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Call the agent from another agent'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('no ts block in the guide section');
  return match[1];
}

describe('the guide: Call the agent from another agent', () => {
  it('runs as written: resolves the card and prints the agent’s answer', async () => {
    const agent = await a2aAgent();
    const key = await createKey(agent, ['reply']);
    const code = (await guideSnippet()).replace(
      'https://gateway.example/agent/0xYourCollection/1/',
      `${worker.deployment.baseUrl}/agent/${agent.collection}/${agent.tokenId}/`,
    );
    expect(code).toContain(worker.deployment.baseUrl);
    const dir = await mkdtemp(path.join(tmpdir(), 'a2a-guide-'));
    try {
      await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
      await writeFile(path.join(dir, 'call.mts'), code);
      const node = path.join(REPO_ROOT, 'node_modules/.bin/node');
      const { stdout } = await promisify(execFile)(node, ['--import', 'tsx', 'call.mts'], {
        cwd: dir,
        env: { PATH: process.env.PATH, AGENT_KEY: key.key },
        timeout: 60_000,
      });
      expect(stdout.trim()).toBe(`${STANDIN_PREFIX} you said: Is order 1042 under warranty?`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
