/** Who may act for an agent besides its owner's wallet: its agent keys and its OAuth grants (MCP clients). */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type { AgentKeyRevoked, AgentKeys, CreatedAgentKey, NewAgentKey, OAuthGrantRevoked, OAuthGrants } from './types';

export interface AccessMethods {
  /** `POST …/keys` (owner's token only): the key is in this answer only. */
  createAgentKey(input: NewAgentKey, options?: CallOptions): Promise<CreatedAgentKey>;
  /** `GET …/keys`: live keys, never the key itself. */
  listAgentKeys(options?: CallOptions): Promise<AgentKeys>;
  /** `DELETE …/keys/{id}`: revoked at once. */
  revokeAgentKey(id: string, options?: CallOptions): Promise<AgentKeyRevoked>;

  /** `GET …/oauth/grants` (owner's token only): the MCP clients this wallet approved for the agent, never a token. */
  listOAuthGrants(options?: CallOptions): Promise<OAuthGrants>;
  /** `DELETE …/oauth/grants/{grantId}`: the grant and its tokens revoked at once. */
  revokeOAuthGrant(grantId: string, options?: CallOptions): Promise<OAuthGrantRevoked>;
}

export function accessMethods(agent: AgentCalls): AccessMethods {
  return {
    createAgentKey: (input, o = {}) => agent.json('createAgentKey', {}, { body: input, signal: o.signal }),
    listAgentKeys: (o = {}) => agent.json('listAgentKeys', {}, { signal: o.signal }),
    revokeAgentKey: (id, o = {}) => agent.json('revokeAgentKey', { id }, { signal: o.signal }),
    listOAuthGrants: (o = {}) => agent.json('listOAuthGrants', {}, { signal: o.signal }),
    revokeOAuthGrant: (grantId, o = {}) => agent.json('revokeOAuthGrant', { grantId }, { signal: o.signal }),
  };
}
