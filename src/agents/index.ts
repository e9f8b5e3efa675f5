import { createRouter } from '../http/router';
import { getAgent } from './agents.routes';

export const agents = createRouter().openapi(getAgent, (c) => {
  const { agent } = c.var;
  return c.json(
    {
      chainId: agent.chainId,
      agentCollectionAddress: agent.collection,
      agentTokenId: agent.tokenId.toString(),
      kind: agent.kind,
      owner: agent.owner,
    },
    200,
  );
});
