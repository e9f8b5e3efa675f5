/**
 * The one outbound network policy (docs/tools.md, Outbound network policy): every target the gateway connects to on a user's
 * behalf (tool servers, the external database step) passes it before any connection is made.
 *
 * - Host names only: no IP literal in any spelling (dotted, decimal, hex, octal, short forms,
 *   IPv6, IPv4-mapped IPv6). A name is what a public resolver answers for; an address is not
 *   checked against ranges because none is accepted.
 * - No local or internal names: `localhost`, `*.localhost`, `*.local`, `*.internal`, `*.svc`,
 *   `*.cluster.local`, `*.lan`, `*.home.arpa`, ..., single-label hosts, names that embed an IPv4
 *   address (`127.0.0.1.nip.io`, `app-10-0-0-1.example`), and well-known domains whose names all
 *   resolve to loopback or to the address they embed (`localtest.me`, `lvh.me`, `nip.io`, ...).
 * - Ports: see `checkPort`; well-known ports of internal services (Redis, etcd, Docker, ...) never.
 *
 * The list of loopback domains cannot be complete and DNS can change after the check: in
 * production, Cloudflare's network does not route a Worker's connections to private or loopback
 * addresses, which is the second layer. This module is the first: it refuses what can be known
 * from the name, before any lookup.
 *
 * `loopbackTargets` (the local stack's DEV_LOOPBACK_TARGETS) additionally accepts
 * loopback hosts (`127.x.y.z`, `localhost`, `[::1]`) on any port; nothing else changes.
 */

export type OutboundProblem = 'ip_literal' | 'local_host' | 'single_label_host' | 'ip_in_name' | 'invalid_host' | 'port';

export type HostCheck = { ok: true; loopback: boolean } | { ok: false; reason: OutboundProblem; message: string };

export interface OutboundOptions {
  /** The local stack's switch: loopback hosts are accepted (any port). */
  loopbackTargets: boolean;
}

export const PRODUCTION_POLICY: OutboundOptions = Object.freeze({ loopbackTargets: false });

/** Suffixes of names that resolve only inside a private network, a cluster or the machine. */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'arpa', 'localdomain', 'svc', 'corp', 'home', 'private'];

/** Exact names of metadata services that are not caught by a suffix. */
const METADATA_NAMES = new Set(['metadata', 'instance-data', 'metadata.tencentyun.com', 'metadata.platformequinix.com']);

/**
 * Public domains whose names (and every subdomain) resolve to loopback, or to the address they
 * embed, or rebind on purpose: a name under them reaches whatever its label says.
 */
const LOOPBACK_DOMAINS = [
  'localtest.me',
  'lvh.me',
  'vcap.me',
  'lacolhost.com',
  'localhost.direct',
  'local.gd',
  'fuf.me',
  'traefik.me',
  'nip.io',
  'sslip.io',
  'xip.io',
  'nip.direct',
  '1u.ms',
  'rbndr.us',
];

/**
 * Well-known ports of services that are never a tool server or a database we talk to, and that
 * answer plain-text protocols a crafted request could speak to (Redis, memcached, etcd, Docker,
 * the Kubernetes API and kubelet, Consul, Vault, search and message brokers, other databases).
 */
export const BLOCKED_SERVICE_PORTS: ReadonlySet<number> = new Set([
  1080, 1433, 1521, 2049, 2181, 2375, 2376, 2379, 2380, 3306, 3389, 4369, 5672, 5900, 5984, 6379, 6443, 8200, 8500, 9042, 9092, 9200, 9300,
  10250, 10255, 11211, 15672, 25565, 27017,
]);

/** An all-numeric label (decimal, octal or hex): IPv4 parsers accept these in any spelling. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/i;
const OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
/** `a-b-c-d` with four octets inside a label, as wildcard DNS services spell an address. */
const DASHED_IPV4 = /(?:^|[^0-9])(?:[0-9]{1,3})-(?:[0-9]{1,3})-(?:[0-9]{1,3})-(?:[0-9]{1,3})(?:[^0-9]|$)/;
const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const LOOPBACK_V4 = /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/;

function refuse(reason: OutboundProblem, message: string): HostCheck {
  return { ok: false, reason, message };
}

/** True for the loopback hosts the local stack's switch accepts: `127.x.y.z`, `localhost`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || (LOOPBACK_V4.test(h) && h.split('.').every((o) => OCTET.test(o)));
}

/** An IP address in any spelling IPv4 or IPv6 parsers accept (dotted, short, decimal, hex, octal, IPv6). */
export function isIpLiteral(host: string): boolean {
  if (host.includes(':') || host.startsWith('[')) return true; // IPv6, bracketed or not
  const labels = host.split('.').filter((label) => label !== '');
  if (labels.length === 0) return false;
  // 127.1, 0x7f.1, 2130706433, 0177.0.0.1: what inet_aton and WHATWG URL accept as IPv4.
  if (labels.every((label) => NUMERIC_LABEL.test(label))) return true;
  // WHATWG URL treats a host whose last label is numeric as IPv4 (and fails or converts it).
  return NUMERIC_LABEL.test(labels[labels.length - 1] ?? '');
}

function embedsIpv4(labels: string[]): boolean {
  for (let i = 0; i + 4 <= labels.length; i++) {
    if (labels.slice(i, i + 4).every((label) => OCTET.test(label))) return true;
  }
  return labels.some((label) => DASHED_IPV4.test(label));
}

const underDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * Checks a host (as the WHATWG URL parser gives it, or as typed for the database step): a public
 * DNS name, or a loopback host when `loopbackTargets` is on.
 */
export function checkOutboundHost(rawHost: string, options: OutboundOptions): HostCheck {
  const host = rawHost.toLowerCase();
  if (host === '') return refuse('invalid_host', 'The host is empty');
  if (options.loopbackTargets && isLoopbackHost(host)) return { ok: true, loopback: true };
  if (isIpLiteral(host)) return refuse('ip_literal', 'The host must be a name, not an IP address');
  if (host.endsWith('.')) return refuse('invalid_host', 'The host must not end with a dot');
  const labels = host.split('.');
  if (METADATA_NAMES.has(host) || LOCAL_SUFFIXES.some((suffix) => underDomain(host, suffix)) || underDomain(host, 'cluster.local')) {
    return refuse('local_host', 'The host must be a public name, not a local or internal one');
  }
  if (labels.length < 2) return refuse('single_label_host', 'The host must be a fully qualified name');
  if (host.length > 253 || !labels.every((label) => HOST_LABEL.test(label))) {
    return refuse('invalid_host', 'The host is not a valid DNS name');
  }
  if (LOOPBACK_DOMAINS.some((domain) => underDomain(host, domain))) {
    return refuse('local_host', 'The host is under a domain that resolves to loopback or to an address in the name');
  }
  if (embedsIpv4(labels)) return refuse('ip_in_name', 'The host must not embed an IP address');
  return { ok: true, loopback: false };
}

/**
 * Ports: a loopback target (local stack only) may use any port. Otherwise tool servers use 443
 * or a non-privileged port (1024..65535), the database step 5432 or a non-privileged port;
 * never a well-known port of an internal service (`BLOCKED_SERVICE_PORTS`).
 */
export function checkPort(port: number, purpose: 'tool_server' | 'database', loopback: boolean): HostCheck {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return refuse('port', 'The port is not a valid port number');
  if (loopback) return { ok: true, loopback };
  const standard = purpose === 'tool_server' ? 443 : 5432;
  if (port !== standard && (port < 1024 || BLOCKED_SERVICE_PORTS.has(port))) {
    return refuse(
      'port',
      `Port ${port} is not allowed: use ${standard} or a non-privileged port (1024-65535) other than well-known internal service ports`,
    );
  }
  return { ok: true, loopback };
}

/** Host and port of a database target (the external database step). */
export function checkDatabaseTarget(target: { host: string; port: number }, options: OutboundOptions): HostCheck {
  const host = checkOutboundHost(target.host, options);
  if (!host.ok) return host;
  return checkPort(target.port, 'database', host.loopback);
}
