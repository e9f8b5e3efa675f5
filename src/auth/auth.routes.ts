import { createRoute, z } from '@hono/zod-openapi';
import { AddressSchema } from '../identity/identity';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody } from '../http/openapi';
import { isAcceptedSignatureShape } from './signature';

export const ChainIdSchema = z
  .number()
  .int()
  .openapi({ example: 80002, description: 'Chain of this deployment: 137 (mainnet) or 80002 (testnet)' });

export const SignatureSchema = z
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
    purpose: z.enum(['login', 'pairing']).default('login').openapi({
      description:
        "`login` (default): a sign-in message for /auth/jwt/finish. `pairing`: a chat-pairing message for /wallet/verify. The two carry different statements and neither endpoint accepts the other's.",
      example: 'login',
    }),
  })
  .openapi('LoginInit');

const InitResponseSchema = z
  .object({
    nonce: z.string().openapi({
      example: '0mwrioc009f1c2e7d0b4a4c3e8e2f6a1b5d7c9e0f3a2b4c6d8e0f1a2b5c7d9e1f3a5b7c9d',
      description: "Single use. 73 alphanumerics: the issue time, 128 random bits and the gateway's tag; send it back with the signature",
    }),
    message: z.string().openapi({
      description: 'The EIP-4361 (Sign-In with Ethereum) text to sign as a personal message, unchanged',
      example:
        'agent-gateway.example wants you to sign in with your Ethereum account:\n' +
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8\n' +
        '\nSign in to agent-gateway. ...\n\nURI: https://agent-gateway.example\n' +
        'Version: 1\nChain ID: 80002\nNonce: 9f1c...\n' +
        'Issued At: 2026-01-01T00:00:00.000Z\nExpiration Time: 2026-01-01T00:05:00.000Z',
    }),
  })
  .openapi('LoginChallenge');

const FinishBodySchema = z
  .object({
    walletAddress: AddressSchema.openapi({ description: 'Same wallet as in init' }),
    chainId: ChainIdSchema,
    signature: SignatureSchema,
    nonce: z
      .string()
      .regex(/^[A-Za-z0-9]{16,96}$/, 'must be the nonce init returned')
      .optional()
      .openapi({
        description:
          "Optional (not in the spec's shape): the nonce init returned with the signed message, for a direct lookup. Without it, the signature is matched against the wallet's pending login messages (newest first, a bounded number).",
        example: '0mwrioc009f1c2e7d0b4a4c3e8e2f6a1b5d7c9e0f3a2b4c6d8e0f1a2b5c7d9e1f3a5b7c9d',
      }),
  })
  .openapi('LoginFinish');

const TokenSchema = z
  .object({
    token: z
      .string()
      .openapi({ description: 'HS256 JWT; send as Authorization: Bearer <token>', example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...' }),
  })
  .openapi('AccessToken');

const VerifyBodySchema = z
  .object({
    walletAddress: AddressSchema,
    chainId: ChainIdSchema,
    message: z
      .string()
      .min(1)
      .max(4_096)
      .openapi({
        description:
          'A pairing message: the text /auth/jwt/init returned for `purpose: "pairing"` (or one the bridge built ' +
          "the same way: EIP-4361 for this deployment's domain, URI and chain, with the pairing statement, issued " +
          'within the nonce lifetime, with a nonce of at least 16 characters never used before)',
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
  operationId: 'initLogin',
  security: [],
  tags: ['Login'],
  summary: 'Start a wallet login',
  description:
    "Returns a fresh nonce and the EIP-4361 message to sign with the wallet. The message names this deployment's " +
    'domain, URI and chain, carries the statement of its purpose (login or chat pairing) and expires after ' +
    'NONCE_TTL_SECONDS (default 300). Several logins of one wallet may be pending: a newer init never invalidates ' +
    'a message already handed out. No token needed.',
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
  operationId: 'finishLogin',
  security: [],
  tags: ['Login'],
  summary: 'Finish a wallet login and get an access token',
  description:
    'Finds the pending login message of this wallet that the signature is over (ordinary wallets by local ' +
    'recovery; ERC-1271 and ERC-6492 smart-contract wallets through the chain) and only then consumes its ' +
    'nonce, once: a wrong signature consumes nothing. Returns a JWT bound to the wallet and this chain, valid ' +
    'JWT__LIVING_TIME seconds. Only login messages issued by init count: a signature over a pairing message ' +
    'is `signature_invalid`. No refresh endpoint: log in again when the token expires.',
  request: { body: jsonBody(FinishBodySchema) },
  responses: {
    200: { description: 'Logged in', content: { 'application/json': { schema: TokenSchema } } },
    400: errorResponse('`validation_failed`: bad address, bad signature shape, or the chain of another deployment'),
    401: errorResponse(
      '`login_not_started` (with a nonce: no pending login of this wallet with this nonce), `nonce_used` (replay: ' +
        'the message was already used), `login_expired`, `login_message_invalid`, `signature_invalid` (not the ' +
        "wallet's signature over any pending login message, e.g. a signature over a pairing message; without " +
        'a nonce also when none is pending or usable, so a finish never tells whether a wallet has a login pending), ' +
        '`message_purpose_mismatch` (a pending message without the login statement: issued before a statement ' +
        'change; `login_expired`, `login_message_invalid` and this one only for a finish with its nonce)',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse(
      '`dependency_unavailable` (with Retry-After): a smart-wallet check needed the chain RPC and it did not answer; nothing is consumed, retry the same signature',
    ),
  },
});

export const verifyWalletRoute = createRoute({
  method: 'post',
  path: '/wallet/verify',
  operationId: 'verifyWallet',
  security: [],
  tags: ['Login'],
  summary: 'Verify a wallet signature (chat pairing)',
  description:
    'For the chat bridge: proves that walletAddress signed a fresh pairing message for this deployment (get ' +
    'one from /auth/jwt/init with `purpose: "pairing"`), so a chat can be bound to a wallet. Same rules as ' +
    'login (domain, URI, chain, freshness, single-use nonce shared with logins); a login message is refused. ' +
    'The signature is checked before the nonce is consumed. No token is issued.',
  request: { body: jsonBody(VerifyBodySchema) },
  responses: {
    200: { description: 'The wallet signed this message', content: { 'application/json': { schema: VerifiedSchema } } },
    400: errorResponse('`validation_failed`: bad address, message or signature shape, or the chain of another deployment'),
    401: errorResponse(
      '`message_purpose_mismatch` (a login message, or any message without the pairing statement), `login_message_invalid`, `login_expired`, `nonce_used`, `signature_invalid`',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse(
      '`dependency_unavailable` (with Retry-After): a smart-wallet check needed the chain RPC and it did not answer; nothing is consumed',
    ),
  },
});
