/** The consent page's posts: the approval's message, the approval itself, and Deny. */
import { createRoute, z } from '@hono/zod-openapi';
import { ChainIdSchema, SignatureSchema } from '../auth/auth.routes';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import { AddressSchema } from '../identity/identity';
import { AUTHORIZE_PATH } from './server';
import { MAX_CLIENT_ID_BYTES } from './token-guard';

const TAG = ['OAuth'];
const HandleSchema = z.string().min(1).max(256).openapi({ description: 'The consent handle the page was rendered with' });

const ApprovalMessageBodySchema = z
  .object({
    clientId: z
      .string()
      .min(1)
      .max(MAX_CLIENT_ID_BYTES)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII')
      .openapi({ description: 'The client the page names (its `data-client-id`)' }),
    resource: z.string().min(1).max(2000).openapi({ description: "The agent's MCP URL the page names (its `data-resource`)" }),
    walletAddress: AddressSchema,
    chainId: ChainIdSchema,
  })
  .openapi('OAuthApprovalMessageRequest');

export const approvalMessage = createRoute({
  method: 'post',
  path: `${AUTHORIZE_PATH}/message`,
  operationId: 'oauthApprovalMessage',
  tags: TAG,
  summary: 'The message that approves a grant, for the wallet to sign',
  description:
    'A Sign-In with Ethereum message of its own purpose: its statement names the client (a metadata-document ' +
    "client by its document's host, a registered client by its unverified name and its id) and the agent (token id " +
    "and collection), its `resources` list the agent's MCP URL, and its nonce is an approval nonce. It does not " +
    'sign in: `/auth/jwt/finish` refuses it, and `POST /oauth/authorize` refuses a login signature. Nothing is stored.',
  security: [],
  request: { body: jsonBody(ApprovalMessageBodySchema) },
  responses: {
    200: jsonResponse('The message and its nonce', z.object({ nonce: z.string(), message: z.string() }).openapi('OAuthApprovalMessage')),
    400: errorResponse(
      "`validation_failed` (another chain, bad fields); `consent_invalid` (an unknown client, or a resource that is no agent's MCP URL)",
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: KV did not answer'),
  },
});

const ApproveBodySchema = z
  .object({
    handle: HandleSchema,
    walletAddress: AddressSchema,
    chainId: ChainIdSchema,
    nonce: z.string().regex(/^[A-Za-z0-9]{16,96}$/, 'must be the nonce of the approval message'),
    signature: SignatureSchema,
  })
  .openapi('OAuthApproval');

export const approve = createRoute({
  method: 'post',
  path: AUTHORIZE_PATH,
  operationId: 'oauthApprove',
  tags: TAG,
  summary: 'Complete an authorization with a wallet signature',
  description:
    'What the authorize page posts: the consent handle (bound to the browser by a cookie, single use) and ' +
    'a signature over the approval message from `POST /oauth/authorize/message` for this client and agent (a ' +
    'sign-in signature is refused). The wallet must own the agent named by `resource` right now; the approval ' +
    "is audited (`oauth_grant.approve`), and the answer is where to send the browser: the client's redirect URI " +
    'with `code`, `state` and `iss`.',
  security: [],
  request: { body: jsonBody(ApproveBodySchema) },
  responses: {
    200: jsonResponse('Where to send the browser', z.object({ redirectTo: z.string() }).openapi('OAuthApproved')),
    400: errorResponse(
      "`validation_failed`; `consent_invalid` (the handle is unknown, used, expired, or not bound to this browser: open the authorize URL again); `client_metadata_invalid` (the client's metadata document no longer loads or validates)",
    ),
    401: errorResponse(
      '`signature_invalid` (not over the approval of this client and agent), `message_purpose_mismatch` (a sign-in nonce), `login_message_invalid` (a nonce this gateway did not issue for an approval), `login_expired`, `nonce_used`',
    ),
    403: errorResponse('`not_owner`: the wallet does not own the agent'),
    404: errorResponse('`agent_not_found`: the agent does not exist'),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the chain RPC or the database did not answer'),
  },
});

export const deny = createRoute({
  method: 'post',
  path: `${AUTHORIZE_PATH}/deny`,
  operationId: 'oauthDeny',
  tags: TAG,
  summary: 'Refuse an authorization (the Deny button)',
  description:
    "The consent handle is checked first (bound to this browser, single use); then the answer is the client's " +
    'registered redirect URI with `error=access_denied`, its `state` and `iss`. A handle that does not check is 400 ' +
    'and sends the browser nowhere, so this is no open redirect.',
  security: [],
  request: { body: jsonBody(z.object({ handle: HandleSchema }).openapi('OAuthDenial')) },
  responses: {
    200: jsonResponse('Where to send the browser', z.object({ redirectTo: z.string() }).openapi('OAuthDenied')),
    400: errorResponse('`validation_failed`; `consent_invalid` (the handle is unknown, used, expired, or not bound to this browser)'),
    429: RATE_LIMITED_RESPONSE,
  },
});
