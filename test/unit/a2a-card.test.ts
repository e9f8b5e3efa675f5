/**
 * The A2A Agent Card's shape (src/a2a/card.ts): built in the SDK's type, written by the SDK's
 * serializer, read back unchanged by the SDK's parser, and described by the route's schema.
 */
import { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { a2aUrls, agentCardJson, buildAgentCard } from '../../src/a2a/card';
import { AgentCardSchema } from '../../src/a2a/card.routes';
import type { Profile } from '../../src/profile/profile.service';

const ORIGIN = 'https://gateway.example.org';
const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const agent = { collection: COLLECTION.toLowerCase() as `0x${string}`, tokenId: 7n };
const profile: Profile = {
  name: 'Warranty desk',
  description: 'Answers questions about orders.',
  image: 'https://example.com/a.png',
  setByWallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  updatedAt: '2026-11-28T00:00:00.000Z',
};

describe('the Agent Card', () => {
  const json = agentCardJson(buildAgentCard(ORIGIN, agent, profile)) as Record<string, unknown>;

  it('names the JSON-RPC interface at the A2A URL (collection in EIP-55 form), streaming, text in and out', () => {
    expect(json).toMatchObject({
      name: profile.name,
      description: profile.description,
      supportedInterfaces: [{ url: `${ORIGIN}/agent/${COLLECTION}/7/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      iconUrl: profile.image,
    });
    expect(a2aUrls(ORIGIN, agent.collection, 7n).card).toBe(`${ORIGIN}/agent/${COLLECTION}/7/.well-known/agent-card.json`);
  });

  it('offers an agent key (Bearer) or OAuth against our authorization server, either enough', () => {
    expect(json.securitySchemes).toEqual({
      agentKey: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) },
      oauth: {
        oauth2SecurityScheme: expect.objectContaining({
          oauth2MetadataUrl: `${ORIGIN}/.well-known/oauth-authorization-server`,
          flows: {
            authorizationCode: expect.objectContaining({
              authorizationUrl: `${ORIGIN}/oauth/authorize`,
              tokenUrl: `${ORIGIN}/oauth/token`,
              pkceRequired: true,
            }),
          },
        }),
      },
    });
    expect(json.securityRequirements).toEqual([{ schemes: { agentKey: {} } }, { schemes: { oauth: {} } }]);
    expect((json.skills as { id: string }[]).map((s) => s.id)).toEqual(['ask', 'memory']);
  });

  it("is read back unchanged by the SDK's parser, and matches the route's schema", () => {
    expect(AgentCard.toJSON(AgentCard.fromJSON(json))).toEqual(json);
    const parsed = AgentCardSchema.safeParse(json);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    // Every top-level field is one the schema documents.
    expect(Object.keys(json).filter((k) => !(k in AgentCardSchema.shape))).toEqual([]);
  });

  it('leaves the icon out unless the image is an https URL', () => {
    const inline = agentCardJson(buildAgentCard(ORIGIN, agent, { ...profile, image: 'data:image/png;base64,AAAA' }));
    expect(inline).not.toHaveProperty('iconUrl');
    expect(agentCardJson(buildAgentCard(ORIGIN, agent, { ...profile, image: null }))).not.toHaveProperty('iconUrl');
  });
});
