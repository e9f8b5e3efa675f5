/**
 * One retry policy, said the same way: the docs' hydrate and login sections (docs/memory.md,
 * docs/keys-and-automation.md) and the `--help` of hydrate and login carry the words of
 * RETRY_POLICY, and the numbers in them are RETRY's.
 */
import { describe, expect, it } from 'vitest';
import { hydrateCommand } from '../../src/cli/hydrate';
import { loginCommand } from '../../src/cli/login';
import { RETRY, RETRY_POLICY } from '../../src/cli/retry';
import { readDocs } from '../support/docs';

const words = (text: string) => text.replace(/\s+/g, ' ').trim();
const DOCS = words(readDocs());

describe('the retry policy', () => {
  it('the docs say it in the words of --help, twice (hydrate, login)', () => {
    expect(DOCS.split(words(RETRY_POLICY)).length - 1).toBe(2);
  });

  it('hydrate --help and login --help say it', () => {
    expect(words(hydrateCommand.help)).toContain(words(RETRY_POLICY));
    expect(words(loginCommand.help)).toContain(words(RETRY_POLICY));
  });

  it('its numbers are the ones the code uses', () => {
    expect(RETRY_POLICY).toContain(`up to ${RETRY.attempts} attempts`);
    expect(RETRY_POLICY).toContain(`waiting ${RETRY.baseDelayMs / 1000} s`);
    expect(words(RETRY_POLICY)).toContain(`up to ${RETRY.maxDelayMs / 1000} s`);
  });
});
