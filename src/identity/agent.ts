import type { Address } from 'viem';
import type { AgentIdentity } from './identity';

/** An agent that passed the gates: registered collection, existing token, owned by the caller. */
export interface Agent extends AgentIdentity {
  /** The collection's kind in the registry (`internal`, `expert`, ...). */
  kind: string;
  owner: Address;
}
