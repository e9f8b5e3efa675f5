/** `settings set --delegates/--renters`: the owner's access choice as the body's `access`, one level kept when only the other is given. */
import { describe, expect, it } from 'vitest';
import type { LlmSettings } from '../../src/client/types';
import type { OptionValues } from '../../src/cli/command';
import { UsageError } from '../../src/cli/output';
import { givenSettings, namesEveryField, settingsInput } from '../../src/cli/settings-input';

const current: LlmSettings = {
  provider: 'openai',
  model: 'gpt-4.1-mini',
  temperature: 0.2,
  maxTokens: 2048,
  baseUrl: null,
  apiKeySet: true,
  credential: 'set',
  limits: { tokensPerDay: null },
  summaries: true,
  access: { delegates: 'admin', renters: 'none' },
  pricing: null,
  updatedAt: '2026-11-26T00:00:00.000Z',
};
const input = (values: OptionValues, now: LlmSettings | null = current) => settingsInput(givenSettings(values, {}), now);
const EVERY_FIELD = { provider: 'openai', model: 'm', temperature: '0', 'max-tokens': '10', 'llm-base-url': 'none' };

describe('settings set --delegates/--renters', () => {
  it('leaves access out when neither is given: the gateway keeps it (and a delegate may save)', () => {
    expect(input({ model: 'gpt-4.1' })).not.toHaveProperty('access');
  });

  it('sends both levels: the one given over the current one', () => {
    expect(input({ delegates: 'use' }).access).toEqual({ delegates: 'use', renters: 'none' });
    expect(input({ renters: 'use' }).access).toEqual({ delegates: 'admin', renters: 'use' });
    expect(input({ delegates: 'none', renters: 'use' }).access).toEqual({ delegates: 'none', renters: 'use' });
  });

  it('on an agent without settings, the other level is the default use', () => {
    expect(input({ ...EVERY_FIELD, renters: 'none' }, null).access).toEqual({ delegates: 'use', renters: 'none' });
  });

  it('needs the current settings when only one level is given, even with every other field named', () => {
    expect(namesEveryField(givenSettings({ ...EVERY_FIELD, delegates: 'admin' }, {}))).toBe(false);
    expect(namesEveryField(givenSettings({ ...EVERY_FIELD, delegates: 'admin', renters: 'use' }, {}))).toBe(true);
    expect(namesEveryField(givenSettings(EVERY_FIELD, {}))).toBe(true);
  });

  it('refuses a level out of its list before any request (exit 2)', () => {
    expect(() => givenSettings({ delegates: 'owner' }, {})).toThrow(new UsageError('--delegates takes none, use or admin'));
    expect(() => givenSettings({ renters: 'admin' }, {})).toThrow(new UsageError('--renters takes none or use'));
  });
});
