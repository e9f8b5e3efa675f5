/**
 * The dashboard's word on a page beyond a delegate's or renter's reach (src/dashboard/ui/reach.ts),
 * and that its page levels agree with the gate's own table (src/access/roles.ts): the admin pages'
 * first reads (and the shell's probe, the templates' list) are `admin`, usage and the audit trail
 * the owner's alone.
 */
import { describe, expect, it } from 'vitest';
import { ROLE_ROUTE_ACCESS } from '../../src/access/roles';
import { refusal } from '../../src/dashboard/ui/reach';

describe('refusal: why a page does not open, in words', () => {
  it('opens everything for the owner, and every `use` page for anyone the gate let in', () => {
    expect(refusal({ role: 'owner', admin: true }, 'owner', 'Usage')).toBeUndefined();
    expect(refusal({ role: 'delegate', admin: false }, 'use', 'Memory')).toBeUndefined();
    expect(refusal({ role: 'renter', admin: false }, 'use', 'Chat')).toBeUndefined();
    // Not known yet: the page tries on its own.
    expect(refusal(undefined, 'owner', 'Usage')).toBeUndefined();
  });

  it('keeps owner pages from delegates and renters, admin pages from renters and use-only delegates', () => {
    expect(refusal({ role: 'delegate', admin: true }, 'owner', 'Audit')).toBe(
      "Audit is for the agent's owner only: as its delegate this wallet cannot see it.",
    );
    expect(refusal({ role: 'delegate', admin: true }, 'admin', 'Keys')).toBeUndefined();
    expect(refusal({ role: 'delegate', admin: false }, 'admin', 'Keys')).toContain("The agent's owner lets delegates use it");
    expect(refusal({ role: 'renter', admin: false }, 'admin', 'Profile')).toBe(
      "As the agent's renter this wallet may use it (memory, chat) but not manage it: Profile is for its owner.",
    );
  });
});

describe('the page levels and the gate’s table agree', () => {
  it('admin pages read admin operations; the probe is one; usage and audit are nobody’s but the owner’s', () => {
    for (const op of ['getLlmSettings', 'listPromptTemplates', 'listMcpConnections', 'listAgentKeys', 'getProfile'])
      expect(ROLE_ROUTE_ACCESS[op], op).toBe('admin');
    for (const op of ['getUsage', 'listAuditEntries', 'listOAuthGrants']) expect(ROLE_ROUTE_ACCESS[op], op).toBeUndefined();
    for (const op of ['getAgent', 'readMessages', 'searchMemory', 'replyToContext', 'appendMessage'])
      expect(ROLE_ROUTE_ACCESS[op], op).toBe('use');
  });
});
