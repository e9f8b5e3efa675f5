import { describe, expect, it } from 'vitest';
import { contextsListQuery } from '../../src/cli/contexts';
import { UsageError } from '../../src/cli/output';
import { listKeysSql } from '../../src/contexts/contexts.service';

const schema = { name: 'agent_test', quoted: '"agent_test"' };

describe('listKeysSql', () => {
  it('pages by number with OFFSET, reading one row more than the page', () => {
    const { text, values } = listKeysSql(schema, { page: 3, elementsPerPage: 20, sortDirection: 'asc' });
    expect(values).toEqual([20, 40]);
    expect(text).toContain('ORDER BY key ASC LIMIT $1::int + 1 OFFSET $2');
    expect(text).toContain('(SELECT visible FROM "agent_test".key_count)');
    expect(text).toContain('WITH listing AS MATERIALIZED');
  });

  it('pages after a key with a range condition in the sort direction, no OFFSET', () => {
    const asc = listKeysSql(schema, { page: 1, elementsPerPage: 10, sortDirection: 'asc', after: 'm-09' });
    expect(asc.values).toEqual([10, 'm-09']);
    expect(asc.text).toContain('AND key > $2 ORDER BY key ASC LIMIT $1::int + 1');
    expect(asc.text).not.toContain('OFFSET');
    const desc = listKeysSql(schema, { page: 1, elementsPerPage: 10, sortDirection: 'desc', after: 'm-09' });
    expect(desc.text).toContain('AND key < $2 ORDER BY key DESC LIMIT $1::int + 1');
  });

  it('keeps search (escaped) for the page and the total, and the cursor for the page only', () => {
    const { text, values } = listKeysSql(schema, { page: 1, elementsPerPage: 5, sortDirection: 'asc', search: 'a_b', after: 'k1' });
    expect(values).toEqual([5, '%a\\_b%', 'k1']);
    expect(text).toMatch(/\(SELECT count\(\*\) FROM "agent_test"\.contexts WHERE [^)]*\) AND key ILIKE \$2\)/);
    expect(text).toContain('key ILIKE $2 AND key > $3');
  });
});

describe('contexts list options', () => {
  it('read as a key list query: 100 per page, ascending, no cursor by default', () => {
    expect(contextsListQuery({})).toEqual({ elementsPerPage: 100, search: undefined, sortDirection: 'asc', after: undefined });
    expect(contextsListQuery({ after: 'item-010', limit: '3', desc: true, search: 'it' })).toEqual({
      elementsPerPage: 3,
      search: 'it',
      sortDirection: 'desc',
      after: 'item-010',
    });
  });

  it.each([
    [{ after: 'a' }, '--after must be at least 2 characters'],
    [{ after: 'conversation-context-discovery/x' }, '--after must not start with the reserved prefix'],
    [{ limit: '0' }, '--limit must be a whole number from 1 to 100'],
    [{ limit: '100' }, null],
    [{ limit: '1' }, null],
    [{ limit: '07' }, '--limit must be a whole number from 1 to 100'],
    [{ limit: '1.5' }, '--limit must be a whole number from 1 to 100'],
  ])('%j → %s', (values, message) => {
    if (message === null) {
      expect(() => contextsListQuery(values)).not.toThrow();
      return;
    }
    expect(() => contextsListQuery(values)).toThrow(UsageError);
    expect(() => contextsListQuery(values)).toThrow(message);
  });
});
