import { createRouter } from '../http/router';
import { getAgent } from './agents.routes';
import { agentConfigured } from './configured';

export const agents = createRouter().openapi(getAgent, async (c) => {
  const { agent } = c.var;
  // The reads start while the owner check runs; `agent.owner` is known once it passed.
  const [configured] = await Promise.all([agentConfigured(c.var.db, agent), c.var.ownerCheck]);
  return c.json(
    {
      chainId: agent.chainId,
      agentCollectionAddress: agent.collection,
      agentTokenId: agent.tokenId.toString(),
      kind: agent.kind,
      owner: agent.owner,
      role: c.var.role ?? 'owner',
      configured,
    },
    200,
  );
});

/** `getAgent`'s two existence reads overlap the owner check (docs/architecture.md#a-requests-way-through); it answers only after the check passed. */
export const agentOverlapsOwnerCheck = [getAgent];
