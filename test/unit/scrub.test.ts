import { describe, expect, it } from 'vitest';
import { scrub, scrubLogLine, scrubValue } from '../../src/scrub';

describe('scrub (the one secret scrubber)', () => {
  it('masks every occurrence of each secret at least minLength long (default 8)', () => {
    expect(scrub('a hunter2hunter2 b hunter2hunter2', { secrets: ['hunter2hunter2'] })).toBe('a *** b ***');
    expect(scrub('short abc1234 stays', { secrets: ['abc1234', undefined] })).toBe('short abc1234 stays');
    expect(scrub('key abcd here', { secrets: ['abcd'], minLength: 4 })).toBe('key *** here');
  });

  it('masks JWT shapes only when asked, including one with a short payload', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln';
    expect(scrub(`token ${jwt}`, {})).toBe(`token ${jwt}`);
    expect(scrub(`token ${jwt}`, { jwts: true })).toBe('token ***');
  });

  it('scrubLogLine masks URL credentials and JWTs', () => {
    expect(scrubLogLine('postgresql://u:p4ss@db/x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig')).toBe('postgresql://***@db/x ***');
  });

  it('scrubValue keeps the shape of JSON details', () => {
    const secret = 'tok-0123456789';
    expect(scrubValue({ a: [`x ${secret}`, 1, null], b: { c: secret } }, { secrets: [secret] })).toEqual({
      a: ['x ***', 1, null],
      b: { c: '***' },
    });
  });
});
