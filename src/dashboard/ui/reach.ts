/**
 * What a page of the dashboard needs of the wallet, and why it may not open one, in words: the
 * pure part of ./role.tsx (the shell asks the gateway; this says what its answer means).
 */
import type { AgentRole } from '../../client';

/** What a page needs: using the agent, administering it, or being its owner. */
export type PageNeed = 'use' | 'admin' | 'owner';

export interface Reach {
  role: AgentRole;
  /** A delegate the owner lets administer the agent (always true for the owner, false for a renter). */
  admin: boolean;
}

/** Why the wallet may not open a page needing `need`, in words; undefined when it may (or is not known yet). */
export function refusal(reach: Reach | undefined, need: PageNeed, title: string): string | undefined {
  if (!reach || reach.role === 'owner' || need === 'use') return undefined;
  if (need === 'owner') return `${title} is for the agent's owner only: as its ${reach.role} this wallet cannot see it.`;
  if (reach.admin) return undefined;
  return reach.role === 'renter'
    ? `As the agent's renter this wallet may use it (memory, chat) but not manage it: ${title} is for its owner.`
    : `The agent's owner lets delegates use it (memory, chat) but not manage it: ${title} is for its owner, or for delegates the owner lets administer it.`;
}
