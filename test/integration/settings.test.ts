import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { deployment, errorCode } from '../support/http';

const stack = inject('stack');
const testnet = deployment('testnet');
const settings = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 4096 };

describe('LLM settings', () => {
  it('is 404 until set, then round-trips without ever returning the API key', async () => {
    const agent = await freshAgent(testnet);
    const before = await agent.call('/llm/settings');
    expect(before.status).toBe(404);
    expect(errorCode(before)).toBe('llm_settings_not_found');
    const apiKey = `sk-test-${crypto.randomUUID()}`;
    const saved = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, apiKey } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ ...settings, apiKeySet: true });
    expect(saved.text).not.toContain(apiKey);
    const read = await agent.call('/llm/settings');
    expect(read.body).toMatchObject({ ...settings, apiKeySet: true });
    expect(read.text).not.toContain(apiKey);
    // stored encrypted: the plaintext is nowhere in the database
    const client = new pg.Client({ connectionString: stack.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select count(*)::int as n from gateway.vault_entries where position(convert_to($1, 'UTF8') in ciphertext) > 0 or position(convert_to($1, 'UTF8') in wrapped_key) > 0`,
        [apiKey],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('keeps the key when apiKey is omitted, replaces it when given, removes it on null', async () => {
    const agent = await freshAgent(testnet);
    await agent.call('/llm/settings', { method: 'POST', json: { ...settings, apiKey: 'sk-one' } });
    const kept = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, model: 'other' } });
    expect(kept.body).toMatchObject({ model: 'other', apiKeySet: true });
    const removed = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, apiKey: null } });
    expect(removed.body).toMatchObject({ apiKeySet: false });
  });

  it('refuses maxTokens above TOKEN__MAX_TOKENS_PER_REQUEST (default 100000) with 400', async () => {
    const agent = await freshAgent(testnet);
    const atLimit = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, maxTokens: 100_000 } });
    expect(atLimit.status).toBe(200);
    const over = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, maxTokens: 100_001 } });
    expect(over.status).toBe(400);
    expect(errorCode(over)).toBe('validation_failed');
  });

  it.each([
    ['temperature 3', { temperature: 3 }],
    ['a provider with spaces', { provider: 'open ai' }],
    ['maxTokens 0', { maxTokens: 0 }],
    ['maxTokens 1.5', { maxTokens: 1.5 }],
    ['an empty apiKey', { apiKey: '' }],
  ])('refuses %s with 400', async (_, patch) => {
    const agent = await freshAgent(testnet);
    const res = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, ...patch } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });
});

describe('prompt templates', () => {
  it('is 404 for a missing key, then round-trips and replaces', async () => {
    const agent = await freshAgent(testnet);
    const missing = await agent.call('/prompt-template/greeting');
    expect(missing.status).toBe(404);
    expect(errorCode(missing)).toBe('prompt_template_not_found');
    const saved = await agent.call('/prompt-template/greeting', {
      method: 'POST',
      json: { template: 'Hello {{name}} 👋', description: 'greeting' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ key: 'greeting', template: 'Hello {{name}} 👋', description: 'greeting' });
    await agent.call('/prompt-template/greeting', { method: 'POST', json: { template: 'Hi' } });
    const read = await agent.call('/prompt-template/greeting');
    expect(read.body).toMatchObject({ template: 'Hi', description: null });
  });

  it('keeps templates per agent', async () => {
    const a = await freshAgent(testnet);
    const b = await freshAgent(testnet, { owner: a.owner, token: a.token });
    await a.call('/prompt-template/only-a', { method: 'POST', json: { template: 'A' } });
    expect((await b.call('/prompt-template/only-a')).status).toBe(404);
  });

  it.each([
    ['an empty template', { template: '' }, 'greeting', 'validation_failed'],
    ['a NUL', { template: 'a\u0000b' }, 'greeting', 'nul_character'],
    ['a key with a space', { template: 'x' }, 'bad%20key', 'validation_failed'],
  ])('refuses %s with 400', async (_, body, key, code) => {
    const agent = await freshAgent(testnet);
    const res = await agent.call(`/prompt-template/${key}`, { method: 'POST', json: body });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe(code);
  });

  it('passes the gates: another wallet gets 403', async () => {
    const agent = await freshAgent(testnet);
    const other = await freshAgent(testnet);
    const res = await other.call('/prompt-template/x', { token: agent.token });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('not_owner');
  });
});
