import { describe, expect, it } from 'vitest';
import { parseQuery, positiveTerms } from '../../src/memory/query';

const q = (text: string) => ({ query: text, text });

describe('memory search query language', () => {
  it('reads words, phrases, or and exclusions as websearch_to_tsquery does, with exclusions for every alternative', () => {
    expect(parseQuery('late delivery')).toEqual({ alternatives: [[q('late'), q('delivery')]], excluded: [] });
    expect(parseQuery('"late fee" invoice -refunded or voucher -"gift card"')).toEqual({
      alternatives: [[{ query: '"late fee"', text: 'late fee' }, q('invoice')], [q('voucher')]],
      excluded: [q('refunded'), { query: '"gift card"', text: 'gift card' }],
    });
    expect(parseQuery('INV-2024-0042')).toEqual({ alternatives: [[q('INV-2024-0042')]], excluded: [] });
    // An unclosed quote runs to the end; `or` at either end or doubled is no alternative.
    expect(parseQuery('or "open phrase')).toEqual({ alternatives: [[{ query: '"open phrase"', text: 'open phrase' }]], excluded: [] });
    expect(parseQuery('a or or b or')?.alternatives).toEqual([[q('a')], [q('b')]]);
  });

  it('has nothing to look for in an empty query, punctuation or only exclusions', () => {
    for (const text of ['', '   ', '-foo', '!!! ---', '""', '-"a b"', 'or']) expect(parseQuery(text)).toBeNull();
  });

  it('lists each positive term once', () => {
    expect(positiveTerms(parseQuery('a b or b c')!).map((t) => t.query)).toEqual(['a', 'b', 'c']);
  });
});
