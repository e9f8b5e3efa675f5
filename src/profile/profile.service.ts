/**
 * The agent's public profile and the ERC-8004 registration file built from it. The
 * profile is bound to the owner who set it: the file is `active` only while that wallet still
 * owns the agent, so a seller's words are not presented as the buyer's.
 */
import type { PublicClient } from 'viem';
import type { Agent } from '../identity/agent';
import type { AgentIdentity } from '../identity/identity';
import { ownerOf } from '../agents/ownership';
import { collectionKind } from '../agents/registry';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { readPrice } from '../payments/price';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { agentProfiles } from '../storage/schema';
import { A2A_SERVICE_VERSION, AGENT_CARD_PATH, MCP_SERVICE_VERSION, REGISTRATION_TYPE } from './rules';

export interface Profile {
  name: string;
  description: string;
  image: string | null;
  setByWallet: string;
  updatedAt: string;
}

export interface ProfileInput {
  name: string;
  description: string;
  image?: string | null;
}

/** The ERC-8004 registration-v1 file of an agent. */
export interface Registration {
  type: typeof REGISTRATION_TYPE;
  name: string;
  description: string;
  image?: string;
  services: (
    | { name: 'MCP'; endpoint: string; version: typeof MCP_SERVICE_VERSION }
    | { name: 'A2A'; endpoint: string; version: typeof A2A_SERVICE_VERSION }
  )[];
  x402Support: boolean;
  active: boolean;
}

type Row = typeof agentProfiles.$inferSelect;

function toProfile(row: Row): Profile {
  return {
    name: row.name,
    description: row.description,
    image: row.image,
    setByWallet: row.setByWallet,
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function readRow(db: Database, agent: AgentIdentity): Promise<Row | undefined> {
  try {
    const [row] = await db.reads
      .select()
      .from(agentProfiles)
      .where(ofAgent(agentProfiles, agentRef(agent)))
      .limit(1);
    return row;
  } catch (err) {
    throw databaseError(err);
  }
}

/** The agent's profile. @throws AppError `profile_not_found` when none was set. */
export async function getProfile(db: Database, agent: AgentIdentity): Promise<Profile> {
  const row = await readRow(db, agent);
  if (!row) throw new AppError('profile_not_found', 'The owner has not set a profile for this agent');
  return toProfile(row);
}

/** Replaces the profile, bound to the agent's current owner, with its audit entry in the same transaction. */
export async function saveProfile(db: Database, agent: Agent, input: ProfileInput): Promise<Profile> {
  const values = {
    name: input.name,
    description: input.description,
    image: input.image ?? null,
    setByWallet: agent.owner.toLowerCase(),
    updatedAt: new Date(),
  };
  try {
    const row = await db.orm.transaction(async (tx) => {
      const [saved] = await tx
        .insert(agentProfiles)
        .values({ ...agentRef(agent), ...values })
        .onConflictDoUpdate({ target: [agentProfiles.chainId, agentProfiles.collection, agentProfiles.tokenId], set: values })
        .returning();
      await auditChange(tx, agent, 'agent_profile.set', {});
      return saved!;
    });
    return toProfile(row);
  } catch (err) {
    throw databaseError(err);
  }
}

/** The row behind a public document: 404 `agent_not_found` for an unregistered collection, `profile_not_found` without a profile. */
async function readPublicRow(db: Database, agent: AgentIdentity): Promise<Row> {
  const [kind, row] = await Promise.all([collectionKind(db, agent.chainId, agent.collection), readRow(db, agent)]);
  if (kind === null) throw new AppError('agent_not_found', 'Agent not found');
  if (!row) throw new AppError('profile_not_found', 'The owner has not set a profile for this agent');
  return row;
}

/**
 * The profile the A2A Agent Card presents, read without a credential: the same refusals as the
 * registration file, and one more. The card names a live endpoint and no `active` flag, so a
 * profile set by a previous owner is not presented: 404 `profile_not_found` until the new owner
 * sets one. The ownerOf read is asked only once a profile is there.
 */
export async function readPublicProfile(deps: RegistrationDeps, agent: AgentIdentity): Promise<Profile> {
  const row = await readPublicRow(deps.db, agent);
  const current = await ownerOf(deps.chain, agent.collection, agent.tokenId);
  if (!setByOwner(row.setByWallet, current)) {
    throw new AppError('profile_not_found', 'The agent changed hands: its current owner has not set a profile');
  }
  return toProfile(row);
}

/** Whether a profile speaks for the agent now: the wallet that set it still owns the agent (`current` null: no token). */
export function setByOwner(setByWallet: string, current: string | null): boolean {
  return current !== null && current.toLowerCase() === setByWallet;
}

export interface RegistrationDeps {
  db: Database;
  chain: PublicClient;
  /** Whether the deployment takes x402 payments (a facilitator is configured). */
  takesPayments?: boolean;
}

/**
 * The public registration file of `agent`: its MCP endpoint and its A2A Agent Card under `origin`. The collection must be
 * registered (404 `agent_not_found`, as the gate says) and a profile set (404 `profile_not_found`);
 * `active` costs one ownerOf read, asked once a profile is there to present.
 */
export async function readRegistration(deps: RegistrationDeps, agent: AgentIdentity, origin: string): Promise<Registration> {
  const [row, priced] = await Promise.all([readPublicRow(deps.db, agent), deps.takesPayments ? readPrice(deps.db, agent) : null]);
  // Asked only now: a caller without a token must not spend the chain RPC's quota on agents
  // that have nothing to present (one more round trip for a document cached 60 s).
  const current = await ownerOf(deps.chain, agent.collection, agent.tokenId);
  const base = `${origin}/agent/${agent.collection}/${agent.tokenId}`;
  return {
    type: REGISTRATION_TYPE,
    name: row.name,
    description: row.description,
    ...(row.image === null ? {} : { image: row.image }),
    services: [
      { name: 'MCP', endpoint: `${base}/mcp`, version: MCP_SERVICE_VERSION },
      { name: 'A2A', endpoint: `${base}/${AGENT_CARD_PATH}`, version: A2A_SERVICE_VERSION },
    ],
    x402Support: priced !== null,
    active: setByOwner(row.setByWallet, current),
  };
}
