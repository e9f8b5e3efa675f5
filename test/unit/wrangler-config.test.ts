/**
 * The two deployments' wrangler files must stay twins: same code, same runtime, same bindings,
 * differing only in name, chain and URLs. And every binding must be one the code (src/env.ts)
 * and the docs (README.md, docs/configuration.md) know about.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/migrate';
import { readWranglerConfig, type WranglerConfig } from '../../scripts/lib/worker-bundle';
import { SECRET_NAMES } from '../../src/env';
import { RATE_LIMIT_PERIOD_SECONDS, RATE_LIMITERS } from '../../src/http/rate-limit';
import { readDocs } from '../support/docs';

type Deployment = 'mainnet' | 'testnet';
const DEPLOYMENTS: Deployment[] = ['mainnet', 'testnet'];
const EXPECTED: Record<Deployment, { name: string; chainId: string }> = {
  mainnet: { name: 'agent-gateway-mainnet', chainId: '137' },
  testnet: { name: 'agent-gateway-testnet', chainId: '80002' },
};
/**
 * The newest compatibility date the installed workerd supports: its version is 1.YYYYMMDD.N
 * (Miniflare's workerd; wrangler's own is the same date or newer).
 */
const NEWEST_COMPATIBILITY_DATE = (() => {
  const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/workerd/package.json'), 'utf8')) as { version: string };
  const d = /^1\.(\d{4})(\d{2})(\d{2})\./.exec(version);
  if (!d) throw new Error(`unexpected workerd version ${version}`);
  return `${d[1]}-${d[2]}-${d[3]}`;
})();

const config = Object.fromEntries(DEPLOYMENTS.map((d) => [d, readWranglerConfig(d) as WranglerConfig & { main?: string }])) as Record<
  Deployment,
  WranglerConfig & { main?: string }
>;
const tomlText = (d: Deployment) => readFileSync(path.join(REPO_ROOT, `wrangler.${d}.toml`), 'utf8');
/** The comment part of every line of a toml file (naively: everything after the first #). */
const tomlComments = (d: Deployment) =>
  tomlText(d)
    .split('\n')
    .filter((line) => line.includes('#'))
    .map((line) => line.slice(line.indexOf('#') + 1))
    .join('\n');

const varNames = (d: Deployment) => Object.keys(config[d].vars ?? {}).sort();
const kvBindings = (d: Deployment) => (config[d].kv_namespaces ?? []).map((kv) => kv.binding).sort();
const rateLimits = (d: Deployment) => [...(config[d].ratelimits ?? [])].sort((a, b) => a.name.localeCompare(b.name));
const rateLimitNames = (d: Deployment) => rateLimits(d).map((r) => r.name);

const envSource = readFileSync(path.join(REPO_ROOT, 'src/env.ts'), 'utf8');
const envInterface = (() => {
  const start = envSource.indexOf('export interface Env {');
  const end = envSource.indexOf('\n}', start);
  if (start < 0 || end < 0) throw new Error('src/env.ts: no `export interface Env { ... }` found');
  return envSource.slice(start, end);
})();
const declaredInEnv = (name: string) => new RegExp(`^\\s*${name}\\??:`, 'm').test(envInterface);

describe('wrangler.mainnet.toml and wrangler.testnet.toml', () => {
  it.each(DEPLOYMENTS)('%s has its own name and chain', (d) => {
    expect(config[d].name).toBe(EXPECTED[d].name);
    expect(config[d].vars?.CHAIN_ID).toBe(EXPECTED[d].chainId);
  });

  it('run the same code on the same runtime', () => {
    expect(config.mainnet.main).toBeTruthy();
    expect(config.testnet.main).toBe(config.mainnet.main);
    expect(config.testnet.compatibility_date).toBe(config.mainnet.compatibility_date);
    expect([...(config.testnet.compatibility_flags ?? [])].sort()).toEqual([...(config.mainnet.compatibility_flags ?? [])].sort());
  });

  it.each(DEPLOYMENTS)('%s has a compatibility date the pinned runtime supports', (d) => {
    expect(config[d].compatibility_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(
      config[d].compatibility_date <= NEWEST_COMPATIBILITY_DATE,
      `${config[d].compatibility_date} <= ${NEWEST_COMPATIBILITY_DATE}`,
    ).toBe(true);
  });

  it('declare the same vars', () => {
    expect(varNames('testnet')).toEqual(varNames('mainnet'));
  });

  it('declare the same KV bindings, NONCES among them', () => {
    expect(kvBindings('testnet')).toEqual(kvBindings('mainnet'));
    expect(kvBindings('mainnet')).toContain('NONCES');
  });

  it('declare the same rate limiters with the same limits and periods: the ones the code uses', () => {
    expect(rateLimitNames('mainnet')).toEqual(Object.keys(RATE_LIMITERS).sort());
    expect(rateLimits('testnet').map((r) => [r.name, r.simple])).toEqual(rateLimits('mainnet').map((r) => [r.name, r.simple]));
  });

  it.each(DEPLOYMENTS)(
    '%s: every rate limiter has a positive limit, the period the code sends as Retry-After, and its own namespace',
    (d) => {
      for (const r of rateLimits(d)) {
        expect(Number.isInteger(r.simple.limit) && r.simple.limit > 0, `${r.name} limit`).toBe(true);
        expect(r.simple.period, `${r.name} period`).toBe(RATE_LIMIT_PERIOD_SECONDS);
        expect(r.namespace_id, `${r.name} namespace_id`).toMatch(/^\d+$/);
      }
      const ids = DEPLOYMENTS.flatMap((dep) => rateLimits(dep).map((r) => r.namespace_id));
      expect(new Set(ids).size, 'namespace ids unique across both deployments').toBe(ids.length);
    },
  );

  it('leave the login limit below a burst of 40 and the agent-route limit generous (hydration tests send ~1,100 a minute per wallet)', () => {
    const limit = (name: string) => rateLimits('mainnet').find((r) => r.name === name)?.simple.limit ?? 0;
    expect(limit('LOGIN_RATE_LIMITER')).toBeLessThan(40);
    expect(limit('LOGIN_RATE_LIMITER')).toBeGreaterThanOrEqual(21); // a test sends init + 20 concurrent finishes
    expect(limit('AGENT_RATE_LIMITER')).toBeGreaterThanOrEqual(2_000);
  });

  it('run the clean-up on the same Cron Trigger', () => {
    expect(config.mainnet.triggers?.crons?.length).toBeGreaterThan(0);
    expect(config.testnet.triggers?.crons).toEqual(config.mainnet.triggers?.crons);
  });

  it('declare the same observability: Workers Logs on with query strings cut, traces off by default, message text off', () => {
    const observability = (d: Deployment) => (config[d] as unknown as { observability?: Record<string, unknown> }).observability;
    expect(observability('testnet')).toEqual(observability('mainnet'));
    expect(observability('mainnet')).toMatchObject({
      enabled: true,
      redact_query_string: true,
      logs: { enabled: true },
      traces: { enabled: false },
    });
    expect(config.mainnet.vars?.TRACE_MESSAGE_TEXT).toBe('0');
  });

  it.each(DEPLOYMENTS)('every var of %s is declared in the Env interface of src/env.ts', (d) => {
    const missing = varNames(d).filter((name) => !declaredInEnv(name));
    expect(missing, 'vars missing from Env').toEqual([]);
  });

  it.each(DEPLOYMENTS)('%s names every secret in its comments and sets none as a var', (d) => {
    const comments = tomlComments(d);
    for (const secret of SECRET_NAMES) {
      expect(comments, `${secret} mentioned in a comment`).toMatch(new RegExp(`\\b${secret}\\b`));
      expect(Object.keys(config[d].vars ?? {}), `${secret} set as a var`).not.toContain(secret);
    }
  });

  it.each(DEPLOYMENTS)('%s sets no local-stack switch (DEV_*): production policy cannot be loosened by a wrangler file', (d) => {
    expect(tomlText(d)).not.toMatch(/\bDEV_[A-Z_]+/);
  });

  it('secrets, KV and rate-limit bindings are declared in Env too', () => {
    const missing = [...SECRET_NAMES, ...kvBindings('mainnet'), ...rateLimitNames('mainnet')].filter((name) => !declaredInEnv(name));
    expect(missing).toEqual([]);
  });

  it('README.md and docs/ mention every var, secret and binding', () => {
    const docs = readDocs();
    const names = [...new Set([...varNames('mainnet'), ...SECRET_NAMES, ...kvBindings('mainnet'), ...rateLimitNames('mainnet')])];
    expect(
      names.filter((name) => !docs.includes(name)),
      'names missing from README.md and docs/*.md',
    ).toEqual([]);
  });
});
