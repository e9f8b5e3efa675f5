/** `settings set`'s flags over the agent's current settings, checked with the route's own schema. */
import { describe, expect, it } from 'vitest';
import type { LlmSettings } from '../../src/client/types';
import type { OptionValues } from '../../src/cli/command';
import { givenSettings, namesEveryField, settingsInput } from '../../src/cli/settings-input';

const current: LlmSettings = {
  provider: 'openai-compatible',
  model: 'llama',
  temperature: 0.2,
  maxTokens: 2048,
  baseUrl: 'https://api.groq.com/openai/v1',
  apiKeySet: true,
  credential: 'set',
  limits: { tokensPerDay: 1000 },
  summaries: true,
  access: { delegates: 'use', renters: 'use' },
  pricing: null,
  updatedAt: '2026-11-26T00:00:00.000Z',
};
const input = (values: OptionValues, env: NodeJS.ProcessEnv = {}, now: LlmSettings | null = current) =>
  settingsInput(givenSettings(values, env), now);

describe('settings set: flags over the current settings', () => {
  it('keeps what is not given, and omits key, limits and summaries so the gateway keeps them too', () => {
    expect(input({ model: 'llama-2' })).toEqual({
      provider: 'openai-compatible',
      model: 'llama-2',
      temperature: 0.2,
      maxTokens: 2048,
      baseUrl: 'https://api.groq.com/openai/v1',
    });
  });

  it('keeps the base URL only while the provider stays; none is the provider’s own', () => {
    expect(input({ provider: 'openai' })).not.toHaveProperty('baseUrl');
    expect(input({ 'llm-base-url': 'none' }).baseUrl).toBeNull();
  });

  it('reads the key from the variable --key-env names; --no-key is null; limits and summaries as the body has them', () => {
    expect(input({ 'key-env': 'K', 'tokens-per-day': 'none', summaries: 'off' }, { K: ' sk-abcdefgh ' })).toMatchObject({
      apiKey: 'sk-abcdefgh',
      limits: { tokensPerDay: null },
      summaries: false,
    });
    expect(input({ 'no-key': true, 'tokens-per-day': '7' })).toMatchObject({ apiKey: null, limits: { tokensPerDay: 7 } });
  });

  it.each([
    [{ temperature: '2.5' }, /^--temperature: .*\(0\.\.2\)$/],
    [{ temperature: '1e' }, /--temperature must be a number/],
    [{ 'max-tokens': '1.5' }, /^--max-tokens: /],
    [{ 'tokens-per-day': '0' }, /^--tokens-per-day: /],
    [{ model: 'two words' }, /^--model: model must be visible ASCII without spaces$/],
    [{ 'key-env': 'lower-case name' }, /--key-env takes the name of an environment variable/],
  ])('refuses %o by the schema’s rules, naming the flag, before the current settings are read', (values, message) => {
    expect(() => givenSettings(values, {})).toThrow(message);
  });

  it('names the first missing field when the agent has no settings yet', () => {
    expect(() => input({ provider: 'openai' }, {}, null)).toThrow('--model is required: the agent has no LLM settings yet to keep it from');
    const all = { provider: 'p', model: 'm', temperature: '0', 'max-tokens': '1' };
    expect(namesEveryField(givenSettings(all, {}))).toBe(false);
    expect(namesEveryField(givenSettings({ ...all, 'llm-base-url': 'none' }, {}))).toBe(true);
  });
});
