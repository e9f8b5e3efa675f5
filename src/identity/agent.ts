import type { Address } from 'viem';
import type { AgentIdentity } from './identity';

/** Who acted when it was not the owner: a delegate's or a renter's wallet, and how they came in. */
export interface AgentActor {
  wallet: Address;
  via: 'delegate' | 'renter';
}

/** An agent that passed the gates: registered collection, existing token, and a caller it lets in. */
export interface Agent extends AgentIdentity {
  /** The collection's kind in the registry (`internal`, `expert`, ...). */
  kind: string;
  /** The token's current on-chain owner: the wallet secrets are bound to, whoever calls. */
  owner: Address;
  /** The caller when it is the owner's delegate or the token's renter; absent for the owner. */
  actor?: AgentActor | undefined;
}
