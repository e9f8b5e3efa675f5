import type { Address } from 'viem';
import type { AgentRole } from './chain/agent-access';
import type { Agent } from './identity/agent';
import type { Config } from './config';
import type { Env } from './env';
import type { AgentKeyCredential } from './identity/credential';
import type { Database } from './storage/db';

/** Variables the middleware chain sets on every request (`c.var.*`). */
export interface AppVariables {
  /** Set by `requestId()`: echoed as `X-Request-Id` and in every error body. */
  requestId: string;
  /** Set by `withConfig()`: the deployment's parsed configuration. */
  config: Config;
  /** Set by `withDatabase()`: a pool opened on first use and closed after the response. */
  db: Database;
  /**
   * Set by `bearer()` for an access token: the wallet it was issued to (EIP-55). For an agent key,
   * set by `agentGate()` once the key and the owner check passed: the wallet that made the key.
   * The caller, not necessarily the owner: a delegate's or a renter's wallet (see `role`); the
   * owner is `agent.owner`, the wallet secrets are bound to.
   */
  wallet: Address;
  /** Set by `agentGate()` once the check passed: how `wallet` reaches the agent (`owner`, `delegate`, `renter`). */
  role?: AgentRole;
  /** Set by `agentGate()` for a delegate or a renter: the owner's leave (`use` or `admin`; src/access/roles.ts). */
  accessLevel?: 'none' | 'use' | 'admin';
  /** Set by `bearer()` for an OAuth access token: the client (app) it was issued to, acting for `wallet`. */
  oauthClientId?: string;
  /** Set by `bearer()`: the agent key of `Authorization: Bearer agk_...`, undefined for a token. */
  agentKey: AgentKeyCredential | undefined;
  /** Set by `agentGate()` once the agent key passed its own checks: every scope the key has (`KeyScope`s of src/keys/scopes.ts). */
  agentKeyScopes?: readonly string[];
  /**
   * Set by `agentGate()` with `agentKeyScopes`: the key's id, its daily token limit (null:
   * none) and the MCP tools it may use (null: every tool).
   */
  agentKeyUse?: { id: string; tokensPerDay: number | null; tools: readonly string[] | null };
  /**
   * Set by `agentGate()`: the agent of the path; `owner` is its on-chain owner and `actor` the
   * caller when a delegate or a renter, both known once `ownerCheck` passed (on most routes before
   * the handler runs): reading them earlier throws (a handler that overlaps the check awaits it first).
   */
  agent: Agent;
  /**
   * Set by `agentGate()`: the on-chain owner check; rejects with 404/403/503. Settled before the
   * handler except on routes that overlap it with their reads, which await it before committing.
   */
  ownerCheck: Promise<void>;
}

export interface AppBindings {
  Bindings: Env;
  Variables: AppVariables;
}
