/** An agent's public face: the profile its owner sets, and the ERC-8004 registration file and A2A Agent Card made from it. */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type { AgentCard, AgentProfile, AgentProfileInput, AgentRegistration } from './types';

export interface ProfileMethods {
  /** `GET …/profile` (owner's token only; 404 `profile_not_found` when never set). */
  getProfile(options?: CallOptions): Promise<AgentProfile>;
  /** `PUT …/profile` (owner's token only): replaces the profile the registration file presents. */
  setProfile(profile: AgentProfileInput, options?: CallOptions): Promise<AgentProfile>;
  /** `GET …/registration.json`: the public ERC-8004 registration file, fetched without a credential. */
  getRegistration(options?: CallOptions): Promise<AgentRegistration>;
  /** `GET …/.well-known/agent-card.json`: the public A2A Agent Card, fetched without a credential (404 `profile_not_found` without a profile). */
  getAgentCard(options?: CallOptions): Promise<AgentCard>;
}

export function profileMethods(agent: AgentCalls): ProfileMethods {
  return {
    getProfile: (o = {}) => agent.json('getProfile', {}, { signal: o.signal }),
    setProfile: (profile, o = {}) => agent.json('setProfile', {}, { body: profile, signal: o.signal }),
    getRegistration: (o = {}) => agent.json('getRegistration', {}, { agent: false, signal: o.signal }),
    getAgentCard: (o = {}) => agent.json('getAgentCard', {}, { agent: false, signal: o.signal }),
  };
}
