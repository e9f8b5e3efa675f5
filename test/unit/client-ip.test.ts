import { describe, expect, it } from 'vitest';
import { publicClientKey } from '../../src/http/client-ip';

describe('publicClientKey (CF-Connecting-IP)', () => {
  it.each([
    ['8.8.8.8', 'ip4:8.8.8.8'],
    [' 203.0.113.9 ', 'ip4:203.0.113.9'],
    ['172.32.0.1', 'ip4:172.32.0.1'],
    ['100.128.0.1', 'ip4:100.128.0.1'],
    ['2606:4700:4700::1111', 'ip6:2606:4700:4700:0::/64'],
    ['2001:db8:1:2::5', 'ip6:2001:db8:1:2::/64'],
    ['2001:DB8:1:2:aaaa:bbbb:cccc:dddd', 'ip6:2001:db8:1:2::/64'],
    ['::ffff:8.8.4.4', 'ip4:8.8.4.4'],
  ])('keys the public address %s as %s', (header, key) => {
    expect(publicClientKey(header)).toBe(key);
  });

  it('keys every address of one IPv6 /64 alike', () => {
    expect(publicClientKey('2001:db8:1:2::5')).toBe(publicClientKey('2001:db8:1:2:ffff::1'));
    expect(publicClientKey('2001:db8:1:2::5')).not.toBe(publicClientKey('2001:db8:1:3::5'));
  });

  it.each([
    undefined,
    '',
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '256.1.1.1',
    '1.2.3',
    'localhost',
    'not-an-ip',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '8.8.8.8, 1.1.1.1',
  ])('does not key %s (not a real public address: no per-IP limit)', (header) => {
    expect(publicClientKey(header)).toBeNull();
  });
});
