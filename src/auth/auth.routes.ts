import { createRoute, z } from '@hono/zod-openapi';
import { AddressSchema } from '../agents/identity';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody } from '../http/openapi';
import { isAcceptedSignatureShape } from './signature';

const ChainIdSchema = z
  .number()
  .int()
  .openapi({ example: 80002, description: 'Chain of this deployment: 137 (mainnet) or 80002 (testnet)' });

const SignatureSchema = z
  .string()
  .refine(isAcceptedSignatureShape, 'must be 0x-prefixed hex of a 65-byte signature (or a smart-wallet signature)')
  .transform((value) => value as `0x${string}`)
  .openapi({
    example: '0x4d6f...1b',
    description:
      'personal_sign signature over the message: 65 bytes for an ordinary wallet; ERC-1271 wallets may send whole multiples of 65 bytes, counterfactual ERC-6492 wallets the wrapped form.',
  });

const InitBodySchema = z
  .object({
    walletAddress: AddressSchema.openapi({ description: 'The wallet that will sign (0x + 40 hex; mixed case must be EIP-55)' }),
    chainId: ChainIdSchema,
  })
  .openapi('LoginInit');

const InitResponseSchema = z
  .object({
    nonce: z.string().openapi({ example: '9f1c2e7d0b4a4c3e8e2f6a1b5d7c9e0f3a2b4c6d8e0f1a2b' }),
    message: z.string().openapi({
      description: 'The EIP-4361 (Sign-In with Ethereum) text to sign as a personal message, unchanged',
      example:
        'agent-gateway.example wants you to sign in with your Ethereum account:\n0x70997970C51812dc3A010C7d01b50e0d17dc79C8\n\nSign in to agent-gateway. ...\n\nURI: https://agent-gateway.example\nVersion: 1\nChain ID: 80002\nNonce: 9f1c...\nIssued At: 2026-01-01T00:00:00.000Z\nExpiration Time: 2026-01-01T00:05:00.000Z',
    }),
  })
  .openapi('LoginChallenge');

const FinishBodySchema = z
  .object({
    walletAddress: AddressSchema.openapi({ description: 'Same wallet as in init' }),
    chainId: ChainIdSchema,
    signature: SignatureSchema,
  })
  .openapi('LoginFinish');

const TokenSchema = z
  .object({ token: z.string().openapi({ description: 'HS256 JWT; send as Authorization: Bearer <token>', example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...' }) })
  .openapi('AccessToken');

const VerifyBodySchema = z
  .object({
    walletAddress: AddressSchema,
    chainId: ChainIdSchema,
    message: z.string().min(1).max(4_096).openapi({
      description: 'An EIP-4361 message for this deployment (its domain, URI and chain), issued within the nonce lifetime, with a nonce of at least 16 characters never used before',
    }),
    signature: SignatureSchema,
  })
  .openapi('WalletVerification');

const VerifiedSchema = z
  .object({
    verified: z.literal(true),
    walletAddress: z.string().openapi({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
    chainId: z.number().int().openapi({ example: 80002 }),
  })
  .openapi('WalletVerified');


export const initLogin = createRoute({
  method: 'post',
  path: '/auth/jwt/init',
  tags: ['Login'],
  summary: 'Start a wallet login',
  description:
    'Returns a fresh nonce and the EIP-4361 message to sign with the wallet. The message names this deployment\'s domain, URI and chain and expires after NONCE_TTL_SECONDS (default 300). A newer init for the same wallet replaces an older one. No token needed.',
  request: { body: jsonBody(InitBodySchema) },
  responses: {
    200: { description: 'The message to sign', content: { 'application/json': { schema: InitResponseSchema } } },
    400: errorResponse('`validation_failed`: bad address (not hex, wrong length, bad checksum) or the chain of another deployment'),
    415: errorResponse('`unsupported_media_type`: body not sent as application/json'),
    429: RATE_LIMITED_RESPONSE,
  },
});

export const finishLogin = createRoute({
  method: 'post',
  path: '/auth/jwt/finish',
  tags: ['Login'],
  summary: 'Finish a wallet login and get an access token',
  description:
    'Verifies the signature over the message issued by init (ordinary wallets, ERC-1271 and ERC-6492 smart-contract wallets) and returns a JWT bound to the wallet and this chain, valid JWT__LIVING_TIME seconds. The nonce is consumed by the first finish attempt, successful or not: retry with a new init. No refresh endpoint: log in again when the token expires.',
  request: { body: jsonBody(FinishBodySchema) },
  responses: {
    200: { description: 'Logged in', content: { 'application/json': { schema: TokenSchema } } },
    400: errorResponse('`validation_failed`: bad address, bad signature shape, or the chain of another deployment'),
    401: errorResponse(
      '`login_not_started` (no init for this wallet), `nonce_used` (replay), `login_expired`, `login_message_invalid`, `signature_invalid` (wrong signer)',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: a smart-wallet check needed the chain RPC and it did not answer'),
  },
});

export const verifyWalletRoute = createRoute({
  method: 'post',
  path: '/wallet/verify',
  tags: ['Login'],
  summary: 'Verify a wallet signature (chat pairing)',
  description:
    'For the chat bridge: proves that walletAddress signed a fresh EIP-4361 message for this deployment, so a chat can be bound to a wallet. Same rules as login (domain, URI, chain, freshness, single-use nonce) but no token is issued.',
  request: { body: jsonBody(VerifyBodySchema) },
  responses: {
    200: { description: 'The wallet signed this message', content: { 'application/json': { schema: VerifiedSchema } } },
    400: errorResponse('`validation_failed`: bad address, message or signature shape, or the chain of another deployment'),
    401: errorResponse('`login_message_invalid`, `login_expired`, `nonce_used`, `signature_invalid`'),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the chain RPC did not answer'),
  },
});
