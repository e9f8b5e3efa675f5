/** `GET …/prompt-templates`: the agent's templates in byte order of their keys, paged by cursor, without their texts. */
import { describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';

const testnet = deployment('testnet');

interface Page {
  templates: { key: string; description: string | null; characters: number; updatedAt: string }[];
  nextCursor: string | null;
}

describe('the prompt template list', () => {
  it('is empty for an agent without templates', async () => {
    const agent = await freshAgent(testnet);
    const res = await agent.call<Page>('/prompt-templates');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ templates: [], nextCursor: null });
  });

  it('lists keys in byte order, page by page, with description and length, never the text; per agent', async () => {
    const agent = await freshAgent(testnet);
    const keys = ['b', 'B', 'a:2', 'a.1', '@x'];
    for (const key of keys) {
      const saved = await agent.call(`/prompt-template/${key}`, {
        method: 'POST',
        json: { template: `Hello {{name}} 👋 ${key}`, ...(key === 'B' ? { description: 'capital' } : {}) },
      });
      expect(saved.status, saved.text).toBe(200);
    }
    const seen: Page['templates'] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${encodeURIComponent(cursor)}`;
      const res = await agent.call<Page>(`/prompt-templates?${query}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.templates.length).toBeLessThanOrEqual(2);
      expect(res.text).not.toContain('Hello');
      seen.push(...res.body.templates);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    // Byte order: '@' < 'B' < 'a' < 'b'; '.' < ':'.
    expect(seen.map((t) => t.key)).toEqual(['@x', 'B', 'a.1', 'a:2', 'b']);
    const capital = seen.find((t) => t.key === 'B')!;
    expect(capital).toMatchObject({ description: 'capital', characters: 'Hello {{name}} 👋 B'.length - 1 });
    expect(Object.keys(capital).sort()).toEqual(['characters', 'description', 'key', 'updatedAt']);
    expect(seen.find((t) => t.key === 'b')?.description).toBeNull();

    // Another agent of the same owner has none of them.
    const other = await freshAgent(testnet, { owner: agent.owner, token: agent.token });
    expect((await other.call<Page>('/prompt-templates')).body.templates).toEqual([]);
  });

  it.each([
    ['a cursor it did not issue', 'cursor=not-ours'],
    ['a cursor holding a key no template can have', `cursor=${btoa('t1.bad key')}`],
    ['limit 0', 'limit=0'],
    ['limit 101', 'limit=101'],
  ])('refuses %s with 400 validation_failed', async (_, query) => {
    const agent = await freshAgent(testnet);
    expectError(await agent.call(`/prompt-templates?${query}`), 400, 'validation_failed');
  });

  it('passes the gates: no token 401, another wallet 403, an agent key 403 key_not_allowed, an unknown collection 404', async () => {
    const agent = await freshAgent(testnet);
    const path = agentPath(agent.collection, agent.tokenId, '/prompt-templates');
    expectError(await call(testnet.baseUrl, path), 401, 'unauthorized');
    const other = await freshAgent(testnet);
    expectError(await call(testnet.baseUrl, path, { token: other.token }), 403, 'not_owner');
    const key = await createKey(agent, ['contexts:read', 'contexts:write', 'reply', 'mcp']);
    expectError(await withKey(agent, key.key, '/prompt-templates'), 403, 'key_not_allowed');
    const unknown = agentPath('0x000000000000000000000000000000000000dEaD', agent.tokenId, '/prompt-templates');
    expectError(await call(testnet.baseUrl, unknown, { token: agent.token }), 404, 'agent_not_found');
  });
});
