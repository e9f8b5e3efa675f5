import type { RouteHandler } from '@hono/zod-openapi';
import type { z } from '@hono/zod-openapi';
import { chainClient } from '../chain/client';
import { readPublicProfile } from '../profile/profile.service';
import type { AppBindings } from '../types';
import { agentCardJson, buildAgentCard } from './card';
import type { AgentCardSchema, getAgentCard } from './card.routes';

/** Public: no gate ran, so the path is parsed here; the profile is presented only while the wallet that set it owns the agent. */
export const getAgentCardHandler: RouteHandler<typeof getAgentCard, AppBindings> = async (c) => {
  const { config, db } = c.var;
  const { agentCollectionAddress: collection, agentTokenId: tokenId } = c.req.valid('param');
  const profile = await readPublicProfile({ db, chain: chainClient(config) }, { chainId: config.chainId, collection, tokenId });
  const card = buildAgentCard(new URL(c.req.url).origin, { collection, tokenId }, profile);
  // The SDK's serializer writes the JSON form the schema describes (test/unit/a2a-card.test.ts holds them together).
  return c.json(agentCardJson(card) as z.infer<typeof AgentCardSchema>, 200, { 'Cache-Control': 'public, max-age=60' });
};
