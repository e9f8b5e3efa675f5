/**
 * Who may use an agent besides its owner, the pure rules: the role from the access lens's answer
 * (owner first, then delegate, then renter while the rental runs by the chain's time and is not
 * absurdly long), what each access level covers, and the route table (deny by default: every agent
 * route not named is the owner's alone; never usage, audit, database or OAuth grants).
 */
import { type Address, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { accessChoice } from '../../src/settings/access.service';
import { compileRoleAccess, grantedLevel, levelCovers, ROLE_ROUTE_ACCESS } from '../../src/access/roles';
import { accessFrom, MAX_RENTAL_SECONDS } from '../../src/chain/agent-access';
import { KEY_ROUTE_SCOPES } from '../../src/keys/scopes';
import { createApp } from '../../src/app';

const OWNER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CALLER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const NOW = 1_800_000_000n;
type Answer = Parameters<typeof accessFrom>[0];
const answer = (
  a: Partial<{ exists: boolean; owner: Address; delegate: boolean; rentable: boolean; user: Address; expires: bigint }>,
): Answer => [a.exists ?? true, a.owner ?? OWNER, a.delegate ?? false, a.rentable ?? false, a.user ?? zeroAddress, a.expires ?? 0n, NOW];

describe('the role from the lens', () => {
  it('a missing token has no owner and no role', () => {
    expect(accessFrom(answer({ exists: false, delegate: true }), CALLER)).toEqual({ owner: null, role: null });
  });

  it('the owner wins over a delegation and a rental of its own token (any letter case)', () => {
    const own = answer({ delegate: true, rentable: true, user: OWNER, expires: NOW + 10n });
    expect(accessFrom(own, OWNER.toLowerCase() as Address)).toEqual({ owner: OWNER, role: 'owner' });
  });

  it('a delegate before a renter', () => {
    expect(accessFrom(answer({ delegate: true, rentable: true, user: CALLER, expires: NOW + 10n }), CALLER).role).toBe('delegate');
  });

  it.each([
    ['the rental runs', { rentable: true, user: CALLER, expires: NOW + 1n }, 'renter'],
    ['it ends at the chain time', { rentable: true, user: CALLER, expires: NOW }, null],
    ['it ended', { rentable: true, user: CALLER, expires: NOW - 1n }, null],
    ['it runs absurdly long', { rentable: true, user: CALLER, expires: NOW + MAX_RENTAL_SECONDS + 1n }, null],
    ['at the longest believed', { rentable: true, user: CALLER, expires: NOW + MAX_RENTAL_SECONDS }, 'renter'],
    ['another wallet rents it', { rentable: true, user: OWNER, expires: NOW + 10n }, null],
    ['the collection is not ERC-4907', { rentable: false, user: CALLER, expires: NOW + 10n }, null],
  ] as const)('renter when %s?', (_name, a, role) => {
    expect(accessFrom(answer(a), CALLER)).toEqual({ owner: OWNER, role });
  });
});

describe('access levels', () => {
  it('admin covers use; use covers use only; none covers nothing', () => {
    expect([levelCovers('admin', 'admin'), levelCovers('admin', 'use')]).toEqual([true, true]);
    expect([levelCovers('use', 'admin'), levelCovers('use', 'use')]).toEqual([false, true]);
    expect([levelCovers('none', 'admin'), levelCovers('none', 'use')]).toEqual([false, false]);
  });

  it("reads each role's grant from the owner's choice; stored values outside the rules fall back to use", () => {
    const choice = accessChoice({ delegates: 'admin', renters: 'none' });
    expect([grantedLevel('delegate', choice), grantedLevel('renter', choice)]).toEqual(['admin', 'none']);
    expect(accessChoice({ delegates: 'bogus', renters: 'admin' })).toEqual({ delegates: 'use', renters: 'use' });
  });
});

describe('the route table', () => {
  const app = createApp();
  const access = compileRoleAccess(app.openAPIRegistry.definitions);
  const base = '/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1';

  it('names only operations the app has (but the A2A route, added beside)', () => {
    const ids = new Set(
      app.openAPIRegistry.definitions.flatMap((d) => (d.type === 'route' && d.route.operationId ? [d.route.operationId] : [])),
    );
    expect(Object.keys(ROLE_ROUTE_ACCESS).filter((id) => !ids.has(id) && id !== 'agentA2a')).toEqual([]);
  });

  it('every route an agent key reaches is a use route (a delegate-made key never reaches beyond use)', () => {
    for (const id of Object.keys(KEY_ROUTE_SCOPES)) expect(ROLE_ROUTE_ACCESS[id], id).toBe('use');
  });

  it.each([
    ['GET', '', 'use'],
    ['POST', '/context/chat/reply', 'use'],
    ['POST', '/v1/chat/completions', 'use'],
    ['GET', '/contexts/keys', 'use'],
    ['POST', '/mcp', 'use'],
    ['GET', '/llm/settings', 'admin'],
    ['POST', '/llm/settings', 'admin'],
    ['GET', '/keys', 'admin'],
    ['GET', '/profile', 'admin'],
    ['PUT', '/profile', undefined],
    ['GET', '/usage', undefined],
    ['GET', '/audit', undefined],
    ['GET', '/database/settings', undefined],
  ] as const)('%s %s: %s', (method, rest, level) => {
    expect(access.levelFor(method, `${base}${rest}`)).toBe(level);
  });
});
