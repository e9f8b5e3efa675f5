/**
 * The one outbound network policy (src/net/outbound-policy.ts): hosts, ports, the local stack's
 * loopback switch, and its use by tool-server URLs and database targets.
 */
import { describe, expect, it } from 'vitest';
import { canonicalToolServerUrl } from '../../src/tool-servers/url';
import { BLOCKED_SERVICE_PORTS, checkDatabaseTarget, checkOutboundHost, checkPort, PRODUCTION_POLICY } from '../../src/net/outbound-policy';

const DEV = { loopbackTargets: true };

function refused(host: string, reason: string, options = PRODUCTION_POLICY): void {
  expect(checkOutboundHost(host, options), host).toMatchObject({ ok: false, reason });
}

describe('hosts under production policy', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0x7f.1',
    '0177.0.0.1',
    '017700000001',
    '0.0.0.0',
    '0',
    '10.0.0.1',
    '192.168.1.1',
    '172.16.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '8.8.8.8',
    '::1',
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '::ffff:a9fe:a9fe',
    '[fd00::1]',
    '[fe80::1]',
    'fc00::',
    'example.123',
    '1.2.3.4.',
  ])('refuses the IP literal %s', (host) => refused(host, 'ip_literal'));

  it.each([
    'localhost',
    'db.localhost',
    'printer.local',
    'api.cluster.local',
    'kubernetes.default.svc',
    'redis.default.svc',
    'x.internal',
    'metadata.google.internal',
    'router.lan',
    'nas.home.arpa',
    '1.0.0.127.in-addr.arpa',
    'box.localdomain',
    'metadata',
    'instance-data',
    'metadata.tencentyun.com',
    'files.corp',
    'localtest.me',
    'a.localtest.me',
    'lvh.me',
    'app.lvh.me',
    'vcap.me',
    'x.nip.io',
    '7f000001.nip.io',
    '127.0.0.1.nip.io',
    'app-10-0-0-1.sslip.io',
    'x.xip.io',
    'localhost.direct',
    'a.1u.ms',
  ])('refuses the local or loopback-resolving name %s', (host) => refused(host, 'local_host'));

  it.each(['10.0.0.1.example.com', 'db.192.168.0.10.example.net', 'app-127-0-0-1.example.com', '169-254-169-254.attacker.example'])(
    'refuses %s, which embeds an IPv4 address',
    (host) => refused(host, 'ip_in_name'),
  );

  it.each(['intranet', 'server', 'kubernetes'])('refuses the single-label host %s', (host) => refused(host, 'single_label_host'));

  it.each([
    'db.example.com',
    'tools.example',
    'Plain.Tools.Example',
    'ep-cool-name-123456.eu-central-1.aws.neon.tech',
    'a1b2.example.org',
    'v1-2-3.example.com',
  ])('accepts the public name %s', (host) => expect(checkOutboundHost(host, PRODUCTION_POLICY)).toEqual({ ok: true, loopback: false }));

  it('refuses a trailing dot and names that are not DNS names', () => {
    refused('db.example.com.', 'invalid_host');
    refused('-db.example.com', 'invalid_host');
    refused('', 'invalid_host');
    refused(`${'a'.repeat(64)}.example.com`, 'invalid_host');
  });
});

describe('the local stack switch (DEV_LOOPBACK_TARGETS)', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]'])('accepts the loopback host %s', (host) => {
    expect(checkOutboundHost(host, DEV)).toEqual({ ok: true, loopback: true });
  });

  it('still refuses every non-loopback address and internal name', () => {
    for (const host of [
      '0.0.0.0',
      '10.0.0.1',
      '169.254.169.254',
      '127.1',
      '2130706433',
      '[::ffff:127.0.0.1]',
      'x.internal',
      'localtest.me',
      'kubernetes.default.svc',
    ]) {
      expect(checkOutboundHost(host, DEV).ok, host).toBe(false);
    }
  });
});

describe('ports', () => {
  it('tool servers: 443 and non-privileged ports, never a well-known internal service port', () => {
    expect(checkPort(443, 'tool_server', false).ok).toBe(true);
    expect(checkPort(8443, 'tool_server', false).ok).toBe(true);
    expect(checkPort(5432, 'tool_server', false).ok).toBe(true);
    for (const port of [22, 25, 80, 1023, 6379, 11211, 2375, 2379, 6443, 10250, 27017, 0, 65_536, 1.5]) {
      expect(checkPort(port, 'tool_server', false), String(port)).toMatchObject({ ok: false, reason: 'port' });
    }
  });

  it('databases: 5432 and non-privileged ports, never a well-known internal service port', () => {
    expect(checkPort(5432, 'database', false).ok).toBe(true);
    expect(checkPort(6543, 'database', false).ok).toBe(true);
    for (const port of [22, 443, 1023, ...BLOCKED_SERVICE_PORTS]) expect(checkPort(port, 'database', false).ok, String(port)).toBe(false);
  });

  it('a loopback target on the local stack may use any port', () => {
    expect(checkPort(80, 'tool_server', true).ok).toBe(true);
    expect(checkPort(6379, 'database', true).ok).toBe(true);
    expect(checkPort(0, 'database', true).ok).toBe(false);
  });

  it('checkDatabaseTarget checks the host, then the port', () => {
    expect(checkDatabaseTarget({ host: 'db.example.com', port: 5432 }, PRODUCTION_POLICY)).toEqual({ ok: true, loopback: false });
    expect(checkDatabaseTarget({ host: 'db.example.com', port: 6379 }, PRODUCTION_POLICY)).toMatchObject({ ok: false, reason: 'port' });
    expect(checkDatabaseTarget({ host: '127.0.0.1', port: 5433 }, PRODUCTION_POLICY)).toMatchObject({ ok: false, reason: 'ip_literal' });
    expect(checkDatabaseTarget({ host: '127.0.0.1', port: 5433 }, DEV)).toEqual({ ok: true, loopback: true });
  });
});

describe('tool-server URLs through the policy', () => {
  it.each([
    ['https://127.0.0.1.nip.io/mcp', 'local_host'],
    ['https://localtest.me/mcp', 'local_host'],
    ['https://kubernetes.default.svc/mcp', 'local_host'],
    ['https://x.internal/mcp', 'local_host'],
    ['https://tools.example.com:6379/mcp', 'port'],
    ['https://tools.example.com:22/mcp', 'port'],
    ['https://app-10-0-0-1.example.com/mcp', 'ip_in_name'],
    ['http://127.0.0.1:8790/mcp', 'not_https'],
    ['http://localhost:8790/mcp', 'not_https'],
  ])('refuses %s under production policy (%s)', (url, reason) => {
    expect(canonicalToolServerUrl(url)).toMatchObject({ ok: false, reason });
  });

  it('accepts loopback http tool servers on the local stack, and keeps their canonical form', () => {
    expect(canonicalToolServerUrl('http://127.0.0.1:8790/mcp', DEV)).toEqual({ ok: true, url: 'http://127.0.0.1:8790/mcp' });
    expect(canonicalToolServerUrl('http://LOCALHOST:8790/mcp', DEV)).toEqual({ ok: true, url: 'http://localhost:8790/mcp' });
    expect(canonicalToolServerUrl('http://[::1]:8790/mcp', DEV)).toEqual({ ok: true, url: 'http://[::1]:8790/mcp' });
    expect(canonicalToolServerUrl('https://tools.example.com/mcp', DEV)).toEqual({ ok: true, url: 'https://tools.example.com/mcp' });
  });

  it('on the local stack still refuses http to a public host and non-loopback addresses', () => {
    expect(canonicalToolServerUrl('http://tools.example.com/mcp', DEV)).toMatchObject({ ok: false, reason: 'not_https' });
    expect(canonicalToolServerUrl('http://0.0.0.0:8790/mcp', DEV)).toMatchObject({ ok: false, reason: 'ip_literal' });
    expect(canonicalToolServerUrl('http://10.0.0.1:8790/mcp', DEV)).toMatchObject({ ok: false, reason: 'ip_literal' });
    expect(canonicalToolServerUrl('http://167772161:8790/mcp', DEV)).toMatchObject({ ok: false, reason: 'ip_literal' });
  });
});

describe('npm run dev passes the switch', () => {
  it('DEV_LOOPBACK_TARGETS is 1 unless the developer sets 0; anything else is an error', async () => {
    const { devSwitchBindings } = await import('../../scripts/lib/stack');
    expect(devSwitchBindings({})).toEqual({ DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '1' });
    expect(devSwitchBindings({ DEV_LOOPBACK_TARGETS: '' })).toEqual({ DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '1' });
    expect(devSwitchBindings({ DEV_LOOPBACK_TARGETS: '1' })).toEqual({ DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '1' });
    expect(devSwitchBindings({ DEV_LOOPBACK_TARGETS: '0', DEV_RATE_LIMITS: '0' })).toEqual({
      DEV_LOOPBACK_TARGETS: '0',
      DEV_RATE_LIMITS: '0',
    });
    expect(() => devSwitchBindings({ DEV_LOOPBACK_TARGETS: 'off' })).toThrow(/DEV_LOOPBACK_TARGETS=off/);
    expect(() => devSwitchBindings({ DEV_RATE_LIMITS: 'no' })).toThrow(/DEV_RATE_LIMITS=no/);
  });
});
