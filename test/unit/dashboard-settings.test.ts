/**
 * The pure parts of the dashboard's settings pages (src/dashboard/ui): the template page marks the
 * placeholders the renderer fills (one rule, src/replies/placeholders.ts), the usage chart has a
 * bar for every day of the range, and the pages' lists are the routes' own.
 */
import { describe, expect, it } from 'vitest';
import { templateSegments, templateVariables } from '../../src/dashboard/ui/template-segments';
import { daysOf } from '../../src/dashboard/ui/usage-days';
import { AppError } from '../../src/errors';
import { KEY_SCOPES } from '../../src/identity/key-scopes';
import { KeyScopeSchema } from '../../src/keys/scopes';
import { renderTemplate } from '../../src/replies/template';
import { LLM_PROVIDERS } from '../../src/settings/llm-providers';
import { LLM_PROVIDERS as ROUTE_PROVIDERS } from '../../src/settings/llm-base-url';

const missingOf = (template: string): unknown => {
  try {
    renderTemplate(template, {});
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return ((err as AppError).details as { missing: string[] }).missing;
  }
};

describe('the template page', () => {
  it('marks exactly the placeholders the renderer fills, text kept whole', () => {
    for (const template of [
      'You help {{customer}} with {{ topic }}.\nBe brief.',
      '{{a}}{{a}} {{ b.c-d_e }} {{}} {{ not a name }} {{x}',
      'no placeholders',
      '{{ edge }}',
      '',
    ]) {
      const segments = templateSegments(template);
      expect(segments.map((s) => s.text).join(''), template).toBe(template);
      expect(templateVariables(template), template).toEqual(missingOf(template));
    }
    expect(templateSegments('Hi {{ name }}!')).toEqual([{ text: 'Hi ' }, { text: '{{ name }}', variable: 'name' }, { text: '!' }]);
  });
});

describe('the usage chart', () => {
  it('has every day of the range, zero where there was no usage, across a month end', () => {
    const days = daysOf('2026-10-30', '2026-11-02', [
      { day: '2026-10-31', inputTokens: 10, outputTokens: 2, cachedInputTokens: 4, modelCalls: 1, toolCalls: 0 },
    ]);
    expect(days).toEqual([
      { day: '2026-10-30', input: 0, cached: 0, output: 0 },
      { day: '2026-10-31', input: 10, cached: 4, output: 2 },
      { day: '2026-11-01', input: 0, cached: 0, output: 0 },
      { day: '2026-11-02', input: 0, cached: 0, output: 0 },
    ]);
    expect(daysOf('2026-11-26', '2026-11-26', [])).toHaveLength(1);
  });
});

describe("the pages' lists are the routes' own", () => {
  it('key scopes and LLM providers', () => {
    expect(KeyScopeSchema.options).toEqual([...KEY_SCOPES]);
    expect(ROUTE_PROVIDERS).toBe(LLM_PROVIDERS);
  });
});
