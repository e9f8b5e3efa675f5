import { createRoute, z } from '@hono/zod-openapi';
import { AddressSchema } from '../identity/identity';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonResponse } from '../http/openapi';
import { COLLECTIONS_MAX } from './collections.service';
import { DELEGATIONS_MAX } from './delegated-tokens.service';
import { OWNED_TOKENS_MAX } from './owned-tokens.service';

/** Path of the collections registered on this deployment. */
export const COLLECTIONS_PATH = '/collections';
/** Path of the wallet's own tokens of a collection, in OpenAPI form. */
export const OWNED_TOKENS_PATH = '/wallet/collections/{agentCollectionAddress}/tokens';

export const CollectionParamsSchema = z.object({
  agentCollectionAddress: AddressSchema.openapi({
    param: { name: 'agentCollectionAddress', in: 'path' },
    description: 'Address of the agent NFT collection (0x + 40 hex; mixed case must be EIP-55)',
  }),
});

export const OwnedTokensSchema = z
  .object({
    collection: z.string().openapi({ example: '0x5FbDB2315678afecb367f032d93F642f64180aa3', description: 'EIP-55' }),
    owner: z.string().openapi({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', description: "The token's wallet (EIP-55)" }),
    enumerable: z.boolean().openapi({
      description:
        'ERC-165 says the collection is ERC-721 Enumerable (0x780e9d63). False: its holders cannot be listed, `tokens` is empty; ask for a token id instead',
    }),
    tokens: z
      .array(z.object({ tokenId: z.string().openapi({ example: '1', description: 'Decimal' }) }).openapi('OwnedToken'))
      .openapi({ description: `The wallet's token ids in this collection, ascending; at most ${OWNED_TOKENS_MAX}` }),
    truncated: z.boolean().openapi({
      description: `The wallet holds more than ${OWNED_TOKENS_MAX} tokens here: the first ${OWNED_TOKENS_MAX} by the contract's index are listed`,
    }),
    delegated: z
      .array(
        z
          .object({
            tokenId: z.string().openapi({ example: '7', description: 'Decimal' }),
            owner: z.string().openapi({
              example: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
              description: "The token's owner, who delegated to this wallet (EIP-55)",
            }),
          })
          .openapi('DelegatedToken'),
      )
      .openapi({
        description:
          `Agents of this collection the wallet may use as the owner's delegate (delegate.xyz v2, rights zero or \`agent-gateway\`), by token id ascending; at most ${OWNED_TOKENS_MAX}. ` +
          "Empty on a chain without the registry. Whether the owner lets delegates in is the agent's own setting: `GET /agent/{c}/{t}` answers the role",
      }),
    delegatedTruncated: z.boolean().openapi({
      description: `\`delegated\` is not the whole list: more than ${OWNED_TOKENS_MAX} tokens, more than ${DELEGATIONS_MAX} delegations to the wallet here, or a delegator holding tokens of a collection that is not Enumerable`,
    }),
  })
  .openapi('OwnedTokens');

export const listOwnedTokens = createRoute({
  method: 'get',
  path: OWNED_TOKENS_PATH,
  operationId: 'listOwnedTokens',
  tags: ['Agents'],
  summary: "The wallet's own agents in a collection",
  description:
    "The token ids the token's wallet holds in a registered collection, read on-chain on every request (never " +
    'cached): `balanceOf` and `tokenOfOwnerByIndex` (ERC-721 Enumerable), batched through Multicall3 ' +
    'where the chain has it. A collection that is not Enumerable answers `enumerable: false` and no tokens. ' +
    `At most ${OWNED_TOKENS_MAX} tokens (\`truncated\` says there are more).\n\n` +
    "`delegated` lists the agents the wallet may use as a delegate (delegate.xyz v2's registry, `getIncomingDelegations`): a " +
    'token-level delegation for this collection while its delegator still owns the token, and for a collection- or wallet-wide ' +
    "one the delegator's tokens here (Enumerable only). Only full delegations (rights zero) and the gateway's own right " +
    '`bytes32("agent-gateway")` count. A chain without the registry, or a registry that reverts, lists none and changes nothing else.\n\n' +
    "Only a wallet's token: " +
    'an agent key is 403 `key_not_allowed`, an OAuth access token 401 `invalid_token`.',
  security: [{ bearer: [] }],
  request: { params: CollectionParamsSchema },
  responses: {
    200: jsonResponse("The wallet's tokens in the collection", OwnedTokensSchema),
    400: errorResponse('`validation_failed`: a bad collection address (not hex, wrong length, bad checksum)'),
    401: errorResponse(
      '`unauthorized` (missing, malformed or invalid token), `token_expired`, `token_wrong_chain` (a token of the other deployment), `invalid_token` (an OAuth access token)',
    ),
    403: errorResponse("`key_not_allowed`: an agent key; this route needs the owner's wallet token"),
    404: errorResponse(
      '`collection_not_found`: the collection is not registered on this deployment, no contract is at its address, or ERC-165 says it is not ERC-721',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the chain RPC or the database did not answer; retry after Retry-After seconds'),
  },
});

export const CollectionsSchema = z
  .object({
    collections: z
      .array(
        z
          .object({
            address: z.string().openapi({ example: '0x5FbDB2315678afecb367f032d93F642f64180aa3', description: 'EIP-55' }),
            kind: z.string().openapi({ example: 'internal', description: 'The kind it was registered with (`internal`, `expert`, ...)' }),
          })
          .openapi('RegisteredCollection'),
      )
      .openapi({ description: `The collections whose tokens are agents here, by address (ascending); at most ${COLLECTIONS_MAX}` }),
    truncated: z.boolean().openapi({
      description: `More than ${COLLECTIONS_MAX} collections are registered: the first ${COLLECTIONS_MAX} by address are listed`,
    }),
  })
  .openapi('Collections');

export const listCollections = createRoute({
  method: 'get',
  path: COLLECTIONS_PATH,
  operationId: 'listCollections',
  tags: ['Agents'],
  summary: 'The collections registered on this deployment',
  description:
    "The NFT collections whose tokens are agents on this deployment (this chain's registry), with the kind each was " +
    `registered with, sorted by address: the dashboard's agent picker starts with the only one, or offers them. At most ${COLLECTIONS_MAX} ` +
    "(`truncated` says there are more). Only a wallet's token: an agent key is 403 `key_not_allowed`, an OAuth access " +
    'token 401 `invalid_token`.',
  security: [{ bearer: [] }],
  responses: {
    200: jsonResponse('The registered collections', CollectionsSchema),
    401: errorResponse(
      '`unauthorized` (missing, malformed or invalid token), `token_expired`, `token_wrong_chain` (a token of the other deployment), `invalid_token` (an OAuth access token)',
    ),
    403: errorResponse("`key_not_allowed`: an agent key; this route needs a wallet's token"),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the database did not answer; retry after Retry-After seconds'),
  },
});
