import { createRoute, z } from '@hono/zod-openapi';
import { MessageTextSchema } from '../contexts/schemas';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { AgentParamsSchema } from '../identity/identity';
import { jsonBody } from '../http/openapi';
import { ReplyAnswerSchema } from '../replies/schemas';

export const PaidAskRequestSchema = z
  .object({
    message: MessageTextSchema.openapi({ example: 'What do you know about warranty claims?', description: 'What the payer asks' }),
  })
  .strict()
  .openapi('PaidAskRequest');

const base64Json = (description: string) => ({ description, schema: { type: 'string' as const } });

export const paidAsk = createRoute({
  method: 'post',
  path: '/agent/{agentCollectionAddress}/{agentTokenId}/paid/ask',
  operationId: 'paidAsk',
  tags: ['Replies'],
  summary: 'Anyone asks the agent and pays for the reply (x402)',
  description: `For strangers and their agents, with no account and no token: the owner set a price (LLM settings \`pricing\`), and
the reply is paid in USDC to whoever owns the agent at that moment, with the HTTP 402 protocol x402 (v2, scheme \`exact\`:
an EIP-3009 transfer the payer signs). A client such as \`@x402/fetch\` does the two steps itself:

1. Without \`PAYMENT-SIGNATURE\`: 402 \`payment_required\` with the header \`PAYMENT-REQUIRED\` (base64 JSON): network
   \`eip155:{chainId}\`, the chain's USDC as \`asset\` with its EIP-712 domain in \`extra\`, \`amount\` (the price in 6 decimals) and
   \`payTo\`, the agent's on-chain owner read now. Nothing else happens.
2. With a signed \`PAYMENT-SIGNATURE\` for those terms: the deployment's facilitator verifies it, the agent replies as to its owner
   (its model key, prompt template and limits) in the context \`paid/{payer}\` (lower case; created on first use, so the payer's
   conversation goes on), without tools, or with the memory tools \`memory_search\` and \`memory_read\` when the owner's
   \`pricing.memoryTools\` is true (tool servers' tools never). Then the payment is settled: 200 with the reply and
   \`PAYMENT-RESPONSE\` naming the transaction. A reply that fails answers its own error (404, 409, 429, 5xx) and is **not
   settled**: the payer is not charged and may send the same signature again.

One signature buys one reply: the same one again (while its reply runs, or after it was settled) is 402 \`payment_replayed\`, the
model not called. The usage of paid replies is counted as \`payer:0x…\` and what was paid shows in GET …/usage as \`paidUsd\`;
each settled payment is in the audit trail (\`payment.settled\`, with its transaction).`,
  security: [],
  request: {
    params: AgentParamsSchema,
    headers: z.object({
      'PAYMENT-SIGNATURE': z.string().optional().openapi({
        description: "x402's payment payload (base64 JSON): the signed authorization for the terms of PAYMENT-REQUIRED",
      }),
    }),
    body: jsonBody(PaidAskRequestSchema),
  },
  responses: {
    200: {
      description: "The reply, as the owner's POST …/context/{key}/reply answers it (JSON), after the payment was settled",
      headers: { 'PAYMENT-RESPONSE': base64Json('The settlement (base64 JSON): `success`, `transaction`, `network`, `payer`') },
      content: { 'application/json': { schema: ReplyAnswerSchema } },
    },
    400: errorResponse(
      '`validation_failed`: bad collection address or token id, or a body out of its rules (a `message` of 2 characters to 256 KiB, nothing else); ' +
        "or the agent's own reply refusals (`prompt_variable_missing`, `prompt_too_large`, `prompt_over_token_limit`); not settled",
    ),
    402: {
      ...errorResponse(
        '`payment_required` (no `PAYMENT-SIGNATURE`: the terms are in `PAYMENT-REQUIRED`), `payment_invalid` (the facilitator refused ' +
          'the payment: a bad signature, another amount, asset, network or `payTo`, an expired authorization, too little USDC; ' +
          "`details.reason` is x402's reason code; or `authorization_expires_too_soon` / `authorization_valid_too_long`: valid for less than 120 s or more than 30 minutes, refused unspent), `payment_replayed` (this authorization was used already), `payment_settlement_failed` " +
          '(the reply ran but the transfer failed: nothing charged, the reply withheld, the authorization spent: sign a new one); the model is not called for the first three',
      ),
      headers: { 'PAYMENT-REQUIRED': base64Json("x402's payment requirements (base64 JSON), with `error` after a refused payment") },
    },
    404: errorResponse(
      '`agent_not_found` (collection not registered, or no such token), `pricing_not_set` (the owner sets no price: no paid replies)',
    ),
    409: errorResponse(
      "`llm_not_configured`, `credential_reentry_required` (the owner's model key was entered by an earlier owner: a new owner " +
        'is paid once they set their own), `llm_base_url_refused`, `llm_provider_unavailable`, `reply_in_progress` (another paid reply ' +
        'of this payer runs); not settled',
    ),
    429: {
      ...RATE_LIMITED_RESPONSE,
      description:
        '`rate_limited` (too many paid requests for this agent, this payer or this client address), or `usage_limit_reached` (the ' +
        "agent's daily token limit); not settled",
    },
    424: errorResponse("`llm_credential_rejected`: the provider refused the owner's API key; not settled"),
    502: errorResponse('`llm_unavailable`: the provider could not be reached or failed; not settled'),
    503: errorResponse(
      '`payments_unavailable` (the deployment has no facilitator, X402_FACILITATOR_URL), `facilitator_unavailable` (the facilitator ' +
        'could not be reached or failed), `llm_rate_limited`, `dependency_unavailable` (chain RPC or database); not settled',
    ),
    504: errorResponse('`llm_timeout`: the model was silent for LLM_TIMEOUT_MS or the reply passed its deadline; not settled'),
  },
});
