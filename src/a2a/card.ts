/**
 * The agent's A2A Agent Card (A2A v1.0): what another agent reads before it calls this one. Built
 * from the owner's public profile, in the SDK's own card type, and written out in the protocol's
 * JSON form by the SDK's own serializer, so what an A2A client parses is what we meant.
 */
import { AgentCard } from '@a2a-js/sdk';
import { getAddress, type Address } from 'viem';
import type { Profile } from '../profile/profile.service';
import { A2A_SERVICE_VERSION, AGENT_CARD_PATH } from '../profile/rules';

/** The card's own version: its shape, not the agent's (the profile's text says what changed). */
export const AGENT_CARD_VERSION = '1.0.0';
/** The names of the card's two security schemes; a caller presents either. */
export const AGENT_KEY_SCHEME = 'agentKey';
export const OAUTH_SCHEME = 'oauth';

const TEXT = ['text/plain'];

/** Where an agent's card and its A2A endpoint are: the collection in EIP-55 form, as OAuth's resource spells it. */
export function a2aUrls(origin: string, collection: Address, tokenId: bigint): { card: string; endpoint: string } {
  const base = `${origin}/agent/${getAddress(collection)}/${tokenId}`;
  return { card: `${base}/${AGENT_CARD_PATH}`, endpoint: `${base}/a2a` };
}

/**
 * The card of one agent under `origin`: its name and description from the profile (its image as
 * the icon when it is an https URL), the JSON-RPC interface at `…/a2a`, streaming, the two ways to
 * present a credential, and one skill per tool family the caller reaches through a message.
 */
export function buildAgentCard(origin: string, agent: { collection: Address; tokenId: bigint }, profile: Profile): AgentCard {
  const { endpoint } = a2aUrls(origin, agent.collection, agent.tokenId);
  return {
    name: profile.name,
    description: profile.description,
    supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: A2A_SERVICE_VERSION, tenant: '' }],
    provider: undefined,
    version: AGENT_CARD_VERSION,
    documentationUrl: `${origin}/docs`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {
      [AGENT_KEY_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: 'agk',
            description:
              "An agent key with scope `reply` (`Authorization: Bearer agk_...`), made by the agent's owner; the owner's own wallet token is taken too.",
          },
        },
      },
      [OAUTH_SCHEME]: {
        scheme: {
          $case: 'oauth2SecurityScheme',
          value: {
            description:
              "OAuth 2.1, authorization code with PKCE S256, approved by the agent's owner with their wallet. Send this agent's A2A URL " +
              `(${endpoint}) as \`resource\`: a token for the agent's MCP URL, or for another agent, is refused here.`,
            oauth2MetadataUrl: `${origin}/.well-known/oauth-authorization-server`,
            flows: {
              flow: {
                $case: 'authorizationCode',
                value: {
                  authorizationUrl: `${origin}/oauth/authorize`,
                  tokenUrl: `${origin}/oauth/token`,
                  refreshUrl: `${origin}/oauth/token`,
                  scopes: {},
                  pkceRequired: true,
                },
              },
            },
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [AGENT_KEY_SCHEME]: { list: [] } } }, { schemes: { [OAUTH_SCHEME]: { list: [] } } }],
    defaultInputModes: TEXT,
    defaultOutputModes: TEXT,
    skills: [
      {
        id: 'ask',
        name: 'Ask',
        description:
          "Send a message and get the agent's answer: its model over its memory, prompt and tools. The message's contextId names a context of " +
          "the agent's memory (`a2a/{contextId}`; a new one when you send none): any caller allowed to ask for replies who knows it continues " +
          'that conversation and reads its history through the reply, so keep it to yourself, or send none to start afresh.',
        tags: ['chat', 'reply'],
        examples: [],
        inputModes: TEXT,
        outputModes: TEXT,
        securityRequirements: [],
      },
      {
        id: 'memory',
        name: 'Memory',
        description: 'The agent searches and reads its own memory (its contexts and their messages) to answer.',
        tags: ['memory', 'search'],
        examples: [],
        inputModes: TEXT,
        outputModes: TEXT,
        securityRequirements: [],
      },
    ],
    signatures: [],
    ...(profile.image?.startsWith('https:') ? { iconUrl: profile.image } : {}),
  };
}

/** The card in A2A's JSON form, as the SDK writes it. */
export function agentCardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}
