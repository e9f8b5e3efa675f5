import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from '@hono/zod-openapi';
import { scrubLogLine } from './scrub';

/**
 * Every public error code and its HTTP status. A code is a stable contract: clients switch on it.
 * Adding a code without a status does not compile.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_encoding: 400,
  nul_character: 400,
  context_exists: 400,
  agent_kind_not_supported: 400,
  idempotency_key_reused: 400,
  invalid_tool_server_url: 400,
  mcp_connection_exists: 400,
  invalid_tool_schema: 400,
  invalid_tool_arguments: 400,
  tool_server_invalid: 400,
  tool_server_credential_rejected: 400,
  database_not_found: 400,
  // Outbound policy and tool-call limits (docs/tools.md)
  database_target_refused: 400,
  tool_server_oauth_unsupported: 400,
  // Tool servers that need OAuth (docs/tools.md)
  tool_server_oauth_client_required: 400,
  tool_server_not_oauth: 400,
  oauth_state_invalid: 400,
  oauth_issuer_mismatch: 400,
  oauth_denied: 400,
  tool_snapshot_too_large: 400,
  mcp_connection_limit: 400,
  agent_key_limit: 400,
  tool_arguments_too_large: 400,
  database_table_not_offered: 400,
  invalid_llm_base_url: 400,
  prompt_variable_missing: 400,
  prompt_too_large: 400,
  /** OAuth for MCP clients: the authorize page's consent handle is unknown, used, expired or from another browser. */
  consent_invalid: 400,
  /** OAuth for MCP clients: the client's metadata document (its URL `client_id`) no longer loads or validates at approval. */
  client_metadata_invalid: 400,
  unauthorized: 401,
  token_expired: 401,
  token_wrong_chain: 401,
  login_not_started: 401,
  login_expired: 401,
  nonce_used: 401,
  login_message_invalid: 401,
  signature_invalid: 401,
  message_purpose_mismatch: 401,
  /** Agent keys: unknown or malformed, revoked, expired. */
  key_invalid: 401,
  key_revoked: 401,
  key_expired: 401,
  /** An OAuth access token that is unknown, expired, revoked, for another agent, or off the MCP route. */
  invalid_token: 401,
  not_owner: 403,
  /** An agent key on a route keys never use (key, settings, template, tool-server, database admin). */
  key_not_allowed: 403,
  key_scope_missing: 403,
  /** A genuine agent key presented for another agent, or on the other chain's deployment. */
  key_wrong_agent: 403,
  /** The agent's MCP server: a `Host` that is not this deployment's (DNS-rebinding protection). */
  host_not_allowed: 403,
  /** The agent's MCP server: an `Origin` that is neither the gateway's nor one of MCP_ALLOWED_ORIGINS. */
  origin_not_allowed: 403,
  not_found: 404,
  agent_not_found: 404,
  context_not_found: 404,
  summary_not_found: 404,
  llm_settings_not_found: 404,
  prompt_template_not_found: 404,
  profile_not_found: 404,
  mcp_connection_not_found: 404,
  tool_not_found: 404,
  database_setup_not_found: 404,
  agent_key_not_found: 404,
  /** No OAuth grant with this id of the owner's wallet for this agent (unknown, revoked, or another agent's or wallet's). */
  oauth_grant_not_found: 404,
  /** A collection this deployment does not register, or whose address holds no ERC-721 contract. */
  collection_not_found: 404,
  method_not_allowed: 405,
  /** The agent's MCP server: the Accept header must name both application/json and text/event-stream (Streamable HTTP). */
  not_acceptable: 406,
  /** A secret entered by an earlier owner of the agent (never used for the next), or an LLM key entered for another provider or baseUrl: enter it again. */
  credential_reentry_required: 409,
  // Agent replies (docs/replies.md)
  /** The system prompt and the tools leave no room for a message and an answer within TOKEN__MAX_TOKENS_PER_REQUEST. */
  prompt_over_token_limit: 400,
  llm_not_configured: 409,
  llm_provider_unavailable: 409,
  /** A stored LLM baseUrl the outbound policy in force refuses (saved under the local stack's loopback switch, or an older rule). */
  llm_base_url_refused: 409,
  reply_in_progress: 409,
  llm_credential_rejected: 424,
  llm_unavailable: 502,
  llm_rate_limited: 503,
  llm_timeout: 504,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** A daily token limit (the agent's or the agent key's) is reached: replies resume at the next UTC midnight. */
  usage_limit_reached: 429,
  internal_error: 500,
  misconfigured: 500,
  tool_server_unreachable: 424,
  database_unreachable: 424,
  tool_server_failed_dependency: 424,
  /** An OAuth tool server the owner must authorize (again, or for more scopes): `details.authorizeUrl` for the owner. */
  tool_authorization_required: 424,
  tool_server_oauth_failed: 502,
  tool_server_error: 502,
  tool_output_invalid: 502,
  tool_server_timeout: 504,
  dependency_unavailable: 503,
  /** Memory search: the agent's unindexed messages are more than one search reads, or the search ran out of its time. */
  search_busy: 503,
  // Paid replies (docs/paid-calls.md)
  pricing_not_set: 404,
  payment_required: 402,
  payment_invalid: 402,
  payment_replayed: 402,
  payment_settlement_failed: 402,
  payments_unavailable: 503,
  facilitator_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error meant for the client: a stable code, a short safe message, optional details. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { details?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
  readonly details: unknown;
}

/** The one error body shape: `{ error: { code, message, details? }, requestId }`, never a stack, SQL or secret. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_failed' }),
      message: z.string().openapi({ example: 'Request validation failed' }),
      details: z.unknown().optional(),
    }),
    requestId: z.string().openapi({ example: '7f3c1c1e-8d5e-4d4f-9c43-1b0f2f7a9e21' }),
  })
  .openapi('Error');

/** Declares an error response in a route definition. */
export function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ErrorBodySchema } } };
}

/** The 429 of every rate-limited operation (limits in the wrangler files; docs/configuration.md, Rate limits). */
export const RATE_LIMITED_RESPONSE = {
  ...errorResponse('`rate_limited`: too many requests for this wallet or client address; retry after `Retry-After` seconds'),
  headers: {
    'Retry-After': { description: 'Seconds to wait: the period of the rate limit', schema: { type: 'integer' as const, example: 60 } },
  },
};

/**
 * The one refusal the route framework throws itself: @hono/zod-openapi's 415 for a body whose
 * media type the route does not declare (JSON routes meet the JSON gate first; this reaches the
 * form-encoded OAuth token endpoint). Anything else it throws stays a 500.
 */
function fromFramework(err: unknown): AppError | undefined {
  if (err instanceof HTTPException && err.status === 415) {
    return new AppError(
      'unsupported_media_type',
      "This operation does not take this body's Content-Type: see its requestBody in /openapi.json",
    );
  }
  return undefined;
}

/** The one error body (ErrorBodySchema) of an error: its code, message and details when it has any. */
export function errorBody(requestId: string, err: Pick<AppError, 'code' | 'message' | 'details'>): z.infer<typeof ErrorBodySchema> {
  return {
    error: { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) },
    requestId,
  };
}

/**
 * Turns any thrown value into the client-facing error response. Unexpected errors become a
 * generic 500; their cause goes to the log with the request id, never to the client.
 */
export function renderError(c: Context, err: unknown): Response {
  const requestId = (c.get('requestId') as string | undefined) ?? 'unknown';
  const appError = err instanceof AppError ? err : fromFramework(err);
  if ((!appError || appError.status >= 500) && !alreadyLogged(err)) {
    console.error(
      JSON.stringify({
        level: 'error',
        requestId,
        code: appError?.code ?? 'internal_error',
        reason: describeCause(appError?.cause ?? err),
      }),
    );
  }
  const body = errorBody(requestId, appError ?? { code: 'internal_error', message: 'Internal Server Error', details: undefined });
  const res = c.json(body, appError?.status ?? 500);
  res.headers.set('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(appError?.headers ?? {})) res.headers.set(name, value);
  return res;
}

/**
 * Errors already logged. One error can be rendered twice: a failed owner check answers the
 * request and also ends the handler it abandoned (src/access/gate.ts).
 */
const logged = new WeakSet<object>();

/** False the first time `err` is seen (then it is to be logged), true after. */
function alreadyLogged(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (logged.has(err)) return true;
  logged.add(err);
  return false;
}

/** Names the cause of an error for the log: its class and first line, never a whole stack. */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const firstLine = (cause.message ?? '').split('\n')[0]?.slice(0, 300) ?? '';
    return scrubLogLine(`${cause.name}: ${firstLine}`);
  }
  return typeof cause === 'string' ? scrubLogLine(cause.slice(0, 300)) : 'unknown';
}
