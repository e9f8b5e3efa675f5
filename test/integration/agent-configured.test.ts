/**
 * Questions whose empty answer is a 200 (issue 31): `GET /agent/{c}/{t}` says whether the LLM
 * settings and the profile exist (`configured`), and a page of a context's messages whether the
 * context has a summary (`hasSummary`), so the dashboard asks for each only when there is one.
 * The routes that read them still answer 404 when there is none (the CLI and integrators rely on it).
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, seg } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { deployment, expectError } from '../support/http';
import { agentSchema, closePg, quoted, sql } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');
const settings = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 4096 };

afterAll(closePg);

describe('configured: what the owner has set up', () => {
  it('is false for a fresh agent, true once the LLM settings and the profile are saved; an agent key sees the same', async () => {
    const agent = await freshAgent(testnet);
    const fresh = await agent.call('');
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body).toEqual({
      chainId: testnet.chainId,
      agentCollectionAddress: agent.collection,
      agentTokenId: agent.tokenId.toString(),
      kind: 'internal',
      owner: agent.owner.address,
      role: 'owner',
      configured: { llmSettings: false, profile: false },
    });
    // The reads it spares the client still answer 404.
    expectError(await agent.call('/llm/settings'), 404, 'llm_settings_not_found');
    expectError(await agent.call('/profile'), 404, 'profile_not_found');

    const saved = await agent.call('/llm/settings', { method: 'POST', json: settings });
    expect(saved.status, saved.text).toBe(200);
    expect((await agent.call('')).body.configured).toEqual({ llmSettings: true, profile: false });

    const profile = await agent.call('/profile', { method: 'PUT', json: { name: 'Desk', description: 'Orders.' } });
    expect(profile.status, profile.text).toBe(200);
    expect((await agent.call('')).body.configured).toEqual({ llmSettings: true, profile: true });

    // A key of any scope reads the agent summary; it sees the same two booleans and nothing of
    // the settings or the profile themselves, which stay refused to keys.
    const key = await createKey(agent, ['contexts:read']);
    const seen = await withKey(agent, key.key, '');
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.configured).toEqual({ llmSettings: true, profile: true });
    expect(seen.text).not.toContain('gpt-4.1-mini');
    expectError(await withKey(agent, key.key, '/llm/settings'), 403, 'key_not_allowed');
  });

  it('is per agent: another agent of the same owner has none', async () => {
    const first = await freshAgent(testnet);
    await first.call('/profile', { method: 'PUT', json: { name: 'Desk', description: 'Orders.' } });
    const second = await freshAgent(testnet, { owner: first.owner, token: first.token });
    expect((await first.call('')).body.configured).toEqual({ llmSettings: false, profile: true });
    expect((await second.call('')).body.configured).toEqual({ llmSettings: false, profile: false });
  });

  it('is answered only to the owner: a stranger is 403 and learns nothing', async () => {
    const agent = await freshAgent(testnet);
    const stranger = await freshAgent(testnet);
    const res = await withKey(agent, stranger.token, '');
    expectError(res, 403, 'not_owner');
    expect(res.text).not.toContain('configured');
  });
});

describe('hasSummary: whether a context has a summary', () => {
  it('is false until a summary is stored, then true; the summary route says 404 and 200 to match', async () => {
    const agent = await freshAgent(testnet);
    const created = await agent.call('/context', { method: 'POST', json: { key: 'notes/one' } });
    expect(created.status, created.text).toBe(200);
    const appended = await agent.call(`/context/${seg('notes/one')}/messages`, {
      method: 'POST',
      json: {
        messages: [
          { role: 'user', message: 'First message.' },
          { role: 'assistant', message: 'Second message.' },
        ],
      },
    });
    expect(appended.status, appended.text).toBe(200);
    const ids = appended.body.messages.map((m: { id: number }) => m.id);

    const before = await agent.call(`/context/${seg('notes/one')}/messages?order=desc&limit=1`);
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ hasMore: true, hasSummary: false });
    expectError(await agent.call(`/context/${seg('notes/one')}/summary`), 404, 'summary_not_found');

    // A summary as a reply stores it (src/summaries), written straight into the agent's schema.
    const schema = quoted(await agentSchema(stack.databaseUrl, agent));
    await sql(stack.databaseUrl, `INSERT INTO ${schema}.summaries (context_key, summary, from_id, to_id) VALUES ($1, $2, $3, $4)`, [
      'notes/one',
      'The first message.',
      ids[0],
      ids[0],
    ]);
    const after = await agent.call(`/context/${seg('notes/one')}/messages`);
    expect(after.body).toMatchObject({ hasMore: false, hasSummary: true });
    expect((await agent.call(`/context/${seg('notes/one')}/summary`)).status).toBe(200);

    // Per context: another context of the agent has none; a key reading messages sees the same.
    await agent.call('/context', { method: 'POST', json: { key: 'notes/two' } });
    expect((await agent.call(`/context/${seg('notes/two')}/messages`)).body).toEqual({
      messages: [],
      nextCursor: null,
      hasMore: false,
      hasSummary: false,
    });
    const reader = await createKey(agent, ['contexts:read']);
    expect((await withKey(agent, reader.key, `/context/${seg('notes/one')}/messages`)).body.hasSummary).toBe(true);
  });
});
