import type { KeyRequirement } from './key-scopes';

/** An agent key presented as `Authorization: Bearer agk_...`, before the database has been asked. */
export interface AgentKeyCredential {
  /** SHA-256 of the key (hex): what the database stores, and what the rate limiter counts. */
  hash: string;
  /** The scope the route needs (KEY_ROUTE_SCOPES). */
  scope: KeyRequirement;
}
