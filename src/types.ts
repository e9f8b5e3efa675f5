import type { Address } from 'viem';
import type { Agent } from './agents/agent';
import type { Config } from './config';
import type { Env } from './env';
import type { Database } from './storage/db';

/** Variables the middleware chain sets on every request (`c.var.*`). */
export interface AppVariables {
  /** Set by `requestId()`: echoed as `X-Request-Id` and in every error body. */
  requestId: string;
  /** Set by `withConfig()`: the deployment's parsed configuration. */
  config: Config;
  /** Set by `withDatabase()`: a pool opened on first use and closed after the response. */
  db: Database;
  /** Set by `bearer()`: the wallet the access token was issued to (EIP-55). */
  wallet: Address;
  /**
   * Set by `agentGate()`: the agent of the path; `owner` is `wallet`, which `ownerCheck` confirms
   * (on most routes before the handler runs).
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
