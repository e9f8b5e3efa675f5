/**
 * Request and response types of the gateway's API, derived from the route definitions
 * (`src/*\/*.routes.ts`) that also generate the OpenAPI document: a request body is the zod
 * input of the route's JSON body schema, an answer the zod output of its 200 schema, a query the
 * parsed query. A route change changes these types, and the client's method signatures with them:
 * the compiler catches the drift. Names follow the OpenAPI components of `/openapi.json`.
 *
 * Browser-safe: types only (`import type`: no route or worker code reaches the client).
 */
import type { z } from '@hono/zod-openapi';
import type { QueryOf, RequestBodyOf, ResponseOf } from './route-types';
import type { McpConnection, McpTool, McpToolResult } from './types-tool-servers';
import type { getAgent } from '../agents/agents.routes';
import type { listAuditEntries } from '../audit/audit.routes';
import type { listCollections, listOwnedTokens } from '../collections/collections.routes';
import type { finishLogin, initLogin, verifyWalletRoute } from '../auth/auth.routes';
import type {
  appendMessage,
  appendMessages,
  createContext,
  createContexts,
  listContextKeys,
  readMessages,
} from '../contexts/contexts.routes';
import type { RoleSchema } from '../contexts/schemas';
import type { ERROR_STATUS, ErrorBodySchema } from '../errors';
import type { getHealth } from '../health/health.routes';
import type { searchMemory } from '../memory/memory.routes';
import type { readSummary } from '../summaries/summaries.routes';
import type { createAgentKey, listAgentKeys, revokeAgentKey } from '../keys/keys.routes';
import type { listOAuthGrants, revokeOAuthGrant } from '../oauth/grants.routes';
import type { replyToContext } from '../replies/replies.routes';
import type { agentMcp } from '../mcp-server/agent-mcp.routes';
import type { agentA2a } from '../a2a/a2a.routes';
import type { paidAsk } from '../paid/paid.routes';
import type { ReplyEventSchema } from '../replies/schemas';
import type { createChatCompletion } from '../openai-compat/chat.routes';
import type { ChatCompletionChunkSchema } from '../openai-compat/schemas';
import type { firstStep, getDatabaseSettings, secondStep } from '../settings/database.routes';
import type {
  getLlmSettings,
  getPromptTemplate,
  listPromptTemplates,
  saveLlmSettings,
  savePromptTemplate,
} from '../settings/settings.routes';
import type { getUsage } from '../usage/usage.routes';
import type { getProfile, getRegistration, setProfile } from '../profile/profile.routes';
import type { getAgentCard } from '../a2a/card.routes';
import type {
  approvalMessage,
  approve,
  deny,
  authorizationServerMetadata,
  ClientInformationSchema,
  OAuthErrorSchema,
  protectedResourceMetadata,
  registerClient,
  TokenRequestSchema,
  TokenResponseSchema,
} from '../oauth/oauth.routes';

/** `0x` + 40 hex. Mixed case must be a valid EIP-55 checksum. */
export type Address = `0x${string}`;
export type Hex = `0x${string}`;

export type { QueryOf, RequestBodyOf, ResponseOf } from './route-types';

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** Every error code the gateway answers with (a stable contract: switch on it). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes the client itself produces: `network_error` (no HTTP answer: connection refused, reset,
 * DNS), `timeout` (no answer within `timeoutMs`), `aborted` (the caller's signal),
 * `invalid_response` (an answer that is not the documented JSON), `http_error` (an error status
 * without the gateway's error body, e.g. from a proxy), `login_unavailable` (login() without a
 * login account).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'aborted' | 'invalid_response' | 'http_error' | 'login_unavailable';

/** `details` of `validation_failed`. */
export interface ValidationIssues {
  issues: { path: string; message: string }[];
}

/** `{ error: { code, message, details? }, requestId }`: the one error body (component `Error`). */
export type ErrorBody = z.output<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/** Component `HealthReport`: `GET /health` (200 and 503 alike). */
export type HealthReport = ResponseOf<typeof getHealth>;
/** Component `DependencyCheck`. */
export type DependencyCheck = HealthReport['checks']['database'];

// ---------------------------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------------------------

/** Component `LoginInit`: body of `POST /auth/jwt/init`; `purpose` is `login` (default) or `pairing`. */
export type LoginInit = RequestBodyOf<typeof initLogin>;
/** Component `LoginChallenge`: the EIP-4361 message to sign, unchanged. */
export type LoginChallenge = ResponseOf<typeof initLogin>;
/** Component `LoginFinish`: body of `POST /auth/jwt/finish`; `nonce` (optional) names the message signed. */
export type LoginFinish = RequestBodyOf<typeof finishLogin>;
/** Component `AccessToken`. */
export type AccessToken = ResponseOf<typeof finishLogin>;
/** Component `WalletVerification`: body of `POST /wallet/verify` (chat pairing). */
export type WalletVerification = RequestBodyOf<typeof verifyWalletRoute>;
/** Component `WalletVerified`. */
export type WalletVerified = ResponseOf<typeof verifyWalletRoute>;

// ---------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------

/** Component `AgentSummary`: `GET /agent/{collection}/{tokenId}`. */
export type AgentSummary = ResponseOf<typeof getAgent>;
/** How the caller reaches an agent: `owner`, the owner's `delegate` (delegate.xyz) or its `renter` (ERC-4907). */
export type AgentRole = AgentSummary['role'];

/**
 * Component `OwnedTokens`: `GET /wallet/collections/{collection}/tokens`, the token's wallet's own
 * tokens of a collection (`enumerable: false`: not listable, ask for a token id; `truncated`: over 100).
 */
export type OwnedTokens = ResponseOf<typeof listOwnedTokens>;
/** Component `OwnedToken`: `{ tokenId }`, decimal. */
export type OwnedToken = OwnedTokens['tokens'][number];
/** Component `DelegatedToken`: `{ tokenId, owner }`, an agent the wallet may use as its owner's delegate. */
export type DelegatedToken = OwnedTokens['delegated'][number];
/** Component `Collections`: `GET /collections`, the collections registered on the deployment (`truncated`: over 100). */
export type Collections = ResponseOf<typeof listCollections>;
/** Component `RegisteredCollection`: `{ address, kind }`, the address EIP-55. */
export type RegisteredCollection = Collections['collections'][number];

/** An agent: its collection address and token id (decimal; bigint and number are accepted). */
export interface AgentRef {
  collection: Address | string;
  tokenId: bigint | number | string;
}

// ---------------------------------------------------------------------------------------------
// Contexts and messages
// ---------------------------------------------------------------------------------------------

export type Role = z.output<typeof RoleSchema>;

/** Query of `GET …/contexts/keys`: `elementsPerPage` is clamped to 1..100 by the gateway. */
export type ContextKeysQuery = QueryOf<typeof listContextKeys>;
/** Component `NewContext`: body of `POST …/context`. */
export type NewContext = RequestBodyOf<typeof createContext>;
/** Component `NewContexts`: body of `POST …/contexts` (1..100 keys). */
export type NewContexts = RequestBodyOf<typeof createContexts>;
/** Component `ContextKeyPage`. */
export type ContextKeyPage = ResponseOf<typeof listContextKeys>;
/** Component `ContextBatchResult`: `POST …/contexts`. */
export type ContextBatchResult = ResponseOf<typeof createContexts>;
/** One entry of component `ContextBatchResult`. */
export type ContextBatchResultItem = ContextBatchResult['results'][number];
/** Component `NewContextMessage`: one message to append. */
export type NewContextMessage = RequestBodyOf<typeof appendMessage>;
/** Component `NewContextMessages`: body of `POST …/context/{key}/messages` (1..100). */
export type NewContextMessages = RequestBodyOf<typeof appendMessages>;
/** Component `ContextMessage`: a stored message; `id` increases within a context, in commit order. */
export type ContextMessage = ResponseOf<typeof appendMessage>;
/** Component `StoredContextMessages`: answer of `POST …/context/{key}/messages`. */
export type StoredContextMessages = ResponseOf<typeof appendMessages>;
/** Component `ContextMessagePage`: `GET …/context/{key}/messages`. */
export type ContextMessagePage = ResponseOf<typeof readMessages>;
/** Query of `GET …/context/{key}/messages`: `limit` 1..100 (default 50), `cursor` the previous page's `nextCursor`. */
export type MessagesQuery = QueryOf<typeof readMessages>;
/** Component `ContextSummary`: `GET …/context/{key}/summary`, the latest summary of what replies left out, with the message ids it covers. */
export type ContextSummary = ResponseOf<typeof readSummary>;

/** Component `MemorySearch`: body of `POST …/memory/search` (`query` required; filters, `limit` 1..100, `cursor`). */
export type MemorySearch = RequestBodyOf<typeof searchMemory>;
/** Component `MemorySearchPage`: hits best first, `nextCursor` null at the end. */
export type MemorySearchPage = ResponseOf<typeof searchMemory>;
/** Component `MemorySearchHit`: a message found, with its context and score (higher is better). */
export type MemorySearchHit = MemorySearchPage['hits'][number];

/** Options of both append calls. */
export interface AppendOptions {
  /** 1..255 visible ASCII: a retry with the same key and request stores nothing new. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What `appendMessage` returns: the stored message, and whether the answer was a replay. */
export interface AppendedMessage {
  message: ContextMessage;
  /** `Idempotent-Replayed: true`: an earlier request with this Idempotency-Key stored it. */
  replayed: boolean;
}

/** What `appendMessages` returns. */
export interface AppendedMessages extends StoredContextMessages {
  replayed: boolean;
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

/** Component `LlmSettings`: `apiKeySet` and `credential` say what is stored, never the key. */
export type LlmSettings = ResponseOf<typeof getLlmSettings>;

/**
 * Whether a stored secret can be used for the agent's current owner: `none` (none needed or
 * stored), `set` (entered by the current owner), `reenter_required` (entered by an earlier owner
 * of the agent, or before owners were recorded: never used for you, enter your own).
 */
export type CredentialState = LlmSettings['credential'];
/** What the owner lets delegates (`none`, `use`, `admin`) and renters (`none`, `use`) do; the owner's alone to change. */
export type AgentAccess = LlmSettings['access'];
/** What a stranger pays per reply (POST …/paid/ask), as settings take it. */
export type AgentPricing = NonNullable<LlmSettingsInput['pricing']>;

/** Component `LlmSettingsInput`: omit `apiKey` to keep the stored key; null removes it. */
export type LlmSettingsInput = RequestBodyOf<typeof saveLlmSettings>;
/** Component `PromptTemplate`. */
export type PromptTemplate = ResponseOf<typeof getPromptTemplate>;
/** Component `PromptTemplateInput`. */
export type PromptTemplateInput = RequestBodyOf<typeof savePromptTemplate>;
/** Component `PromptTemplatePage`: keys in byte order, `nextCursor` null on the last page. */
export type PromptTemplatePage = ResponseOf<typeof listPromptTemplates>;
/** Component `PromptTemplateSummary`: a template's key, description, length and last change (not its text). */
export type PromptTemplateSummary = PromptTemplatePage['templates'][number];
/** Query of `GET …/prompt-templates`: `cursor` and `limit` (1..100, default 50). */
export type PromptTemplatesQuery = QueryOf<typeof listPromptTemplates>;
/** Component `AgentProfile`: what the registration file presents, and who set it. */
export type AgentProfile = ResponseOf<typeof getProfile>;
/** Component `AgentProfileInput`: `image` an https URL or a small data: URI; omit or null for none. */
export type AgentProfileInput = RequestBodyOf<typeof setProfile>;
/** Component `AgentRegistration`: the public ERC-8004 registration-v1 file. */
export type AgentRegistration = ResponseOf<typeof getRegistration>;
/** Component `AgentCard`: the public A2A v1.0 Agent Card, in A2A's JSON form. */
export type AgentCard = ResponseOf<typeof getAgentCard>;
/** Component `DatabaseFirstStep`: `port` defaults to 5432, `ssl` to `require`; the password goes to the vault. */
export type DatabaseFirstStep = RequestBodyOf<typeof firstStep>;
/** Component `DatabaseFirstStepResult`. */
export type DatabaseFirstStepResult = ResponseOf<typeof firstStep>;
/** Component `DatabaseSecondStep`. */
export type DatabaseSecondStep = RequestBodyOf<typeof secondStep>;
/** Component `DatabaseSetup`: `credential: 'reenter_required'`: an earlier owner entered the password. */
export type DatabaseSetup = ResponseOf<typeof secondStep>;
/** Component `DatabaseSettings`: `active` is null when no setup is active. */
export type DatabaseSettings = ResponseOf<typeof getDatabaseSettings>;

// Tool servers (MCP): ./types-tool-servers.ts
export type * from './types-tool-servers';

// Agent keys (`…/keys`): scoped, revocable credentials for automation.
/** Component `NewAgentKey`. */
export type NewAgentKey = RequestBodyOf<typeof createAgentKey>;
/** Component `AgentKeyScope`. */
export type AgentKeyScope = NewAgentKey['scopes'][number];
/** Component `CreatedAgentKey`: `key` is shown in this answer only. */
export type CreatedAgentKey = ResponseOf<typeof createAgentKey>;
/** Component `AgentKeys`. */
export type AgentKeys = ResponseOf<typeof listAgentKeys>;
/** Component `AgentKey`: never the key itself. */
export type AgentKey = AgentKeys['keys'][number];
/** Component `AgentKeyRevoked`. */
export type AgentKeyRevoked = ResponseOf<typeof revokeAgentKey>;

// OAuth grants (`…/oauth/grants`): the MCP clients the owner approved for the agent.
/** Component `OAuthGrants`. */
export type OAuthGrants = ResponseOf<typeof listOAuthGrants>;
/** Component `OAuthGrant`: never a token; `clientName` is what the client registered itself as. */
export type OAuthGrant = OAuthGrants['grants'][number];
/** Component `OAuthGrantRevoked`. */
export type OAuthGrantRevoked = ResponseOf<typeof revokeOAuthGrant>;

// The audit trail (`…/audit`): administrative changes and tool calls, newest first.
/** Component `AuditPage`: `nextCursor` null on the last page. */
export type AuditPage = ResponseOf<typeof listAuditEntries>;
/** Component `AuditEntry`. */
export type AuditEntry = AuditPage['entries'][number];
/** Component `AuditActor`: `{ wallet }` or `{ keyId }`. */
export type AuditActor = AuditEntry['actor'];
/** Component `AuditTarget`: what was acted on, by name or id. */
export type AuditTarget = AuditEntry['target'];
/** Query of `GET …/audit`: `limit` 1..100 (default 50), `cursor` the previous page's `nextCursor`. */
export type AuditQuery = QueryOf<typeof listAuditEntries>;
// Usage (`…/usage`) and daily limits (LLM settings, agent keys).
/** Component `UsageLimitsInput`: `limits` of LLM settings and key creation; `tokensPerDay` absent or null: none. */
export type UsageLimitsInput = NonNullable<NewAgentKey['limits']>;
/** Component `UsageLimits`: `limits` as answered. */
export type UsageLimits = AgentKey['limits'];
/** The query of `GET …/usage`: `from`/`to` UTC days `YYYY-MM-DD` (both included; default today), `groupBy` (default day). */
export type UsageQuery = QueryOf<typeof getUsage>;
/** Component `UsageReport`. */
export type UsageReport = ResponseOf<typeof getUsage>;
/** Component `UsageTotals`. */
export type UsageTotals = Omit<UsageReport['totals'], 'paidUsd'>;
/** Component `UsageGroup`: the totals of one day, credential or context (the one key `groupBy` names). */
export type UsageGroup = UsageReport['groups'][number];
// ---------------------------------------------------------------------------------------------
// Replies (the agent answers)
// ---------------------------------------------------------------------------------------------

/** Component `McpMessage`: one JSON-RPC 2.0 message to the agent's MCP server (`POST …/mcp`). */
export type McpMessage = RequestBodyOf<typeof agentMcp>;
/** Component `McpAnswer`: its JSON-RPC answer (`result`, or `error`). */
export type McpAnswer = ResponseOf<typeof agentMcp>;
/** Component `A2aRequest`: one A2A JSON-RPC request to the agent (`POST …/a2a`). */
export type A2aRequest = RequestBodyOf<typeof agentA2a>;
/** Component `A2aAnswer`: its JSON-RPC answer (`result`, or `error`). */
export type A2aAnswer = ResponseOf<typeof agentA2a>;
/** Component `PaidAskRequest`: body of `POST …/paid/ask` (a paid reply). */
export type PaidAskRequest = RequestBodyOf<typeof paidAsk>;
/** Component `ReplyRequest`: body of `POST …/context/{key}/reply` (all optional). */
export type ReplyRequest = RequestBodyOf<typeof replyToContext>;
/** Component `ReplyAnswer`: the stored reply (or null), the tool steps, token usage, finish reason. */
export type ReplyAnswer = ResponseOf<typeof replyToContext>;
/** Component `ReplyStep`: one tool call the agent made. */
export type ReplyStep = ReplyAnswer['steps'][number];
/**
 * Component `ReplyEvent`: one event of the streamed reply, `{ event, data }`: `delta` {text},
 * `tool_call`, `tool_result`, then exactly one of `done` (the `ReplyAnswer`) or `error` (the
 * error body of a failure after the stream began).
 */
export type ReplyEvent = z.output<typeof ReplyEventSchema>;

// OpenAI-compatible chat completions (`…/v1/chat/completions`): for OpenAI SDKs and chat UIs.
/** Component `ChatCompletionRequest`: OpenAI's request; the last `user` message is the reply's, `user` names the context. */
export type ChatCompletionRequest = RequestBodyOf<typeof createChatCompletion>;
/** Component `ChatCompletionMessage`. */
export type ChatCompletionMessage = ChatCompletionRequest['messages'][number];
/** Component `ChatCompletion`: the answer without `stream`. */
export type ChatCompletion = ResponseOf<typeof createChatCompletion>;
/** Component `ChatCompletionFinishReason`. */
export type ChatCompletionFinishReason = ChatCompletion['choices'][number]['finish_reason'];
/** Component `ChatCompletionUsage`. */
export type ChatCompletionUsage = ChatCompletion['usage'];
/** Component `ChatCompletionChunk`: one `data:` event of the answer with `stream: true` (read it with an OpenAI client). */
export type ChatCompletionChunk = z.output<typeof ChatCompletionChunkSchema>;

/** Options of `reply` and `replyStream`. */
export interface ReplyOptions {
  /** 1..255 visible ASCII: a retry with the same key returns the first answer; the model is not called twice. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * Deadline, ms, replacing the client's `timeoutMs` for this call (0 for none): of the whole
   * answer for `reply`, of the answer's start (status and headers) for `replyStream`.
   */
  timeoutMs?: number;
}

/** What `reply` returns: the answer, and whether it was a replay of an earlier request with the same Idempotency-Key. */
export interface ReplyResult extends ReplyAnswer {
  replayed: boolean;
}

/** What `replyStream` resolves with once the gateway accepted the request: the events, in order. */
export interface ReplyStream extends AsyncIterable<ReplyEvent> {
  /** `Idempotent-Replayed: true`: the events replay an earlier answer (a single `done`). */
  readonly replayed: boolean;
}
/** Component `McpToolSummary`: a tool as the connection list shows it. */
export type McpToolSummary = McpConnection['tools'][number];
/** Component `McpToolAnnotations`. */
export type McpToolAnnotations = NonNullable<McpTool['annotations']>;
/** Component `McpIcon`. */
export type McpIcon = NonNullable<McpTool['icons']>[number];
/** Component `McpContent`: MCP's content union; narrow an item by `type`. */
export type McpContent = McpToolResult['content'][number];
/** Component `McpTextContent`. */
export type McpTextContent = Extract<McpContent, { type: 'text' }>;
/** Component `McpImageContent`. */
export type McpImageContent = Extract<McpContent, { type: 'image' }>;
/** Component `McpAudioContent`. */
export type McpAudioContent = Extract<McpContent, { type: 'audio' }>;
/** Component `McpResourceLink`. */
export type McpResourceLink = Extract<McpContent, { type: 'resource_link' }>;
/** Component `McpEmbeddedResource`. */
export type McpEmbeddedResource = Extract<McpContent, { type: 'resource' }>;
/** Component `McpContentAnnotations`. */
export type McpContentAnnotations = NonNullable<McpTextContent['annotations']>;

// ---------------------------------------------------------------------------------------------
// OAuth for MCP clients: an MCP client signs in with the owner's wallet instead of an agent key
// ---------------------------------------------------------------------------------------------

/** Component `ProtectedResourceMetadata` (RFC 9728) of an agent's MCP or A2A URL. */
export type ProtectedResourceMetadata = ResponseOf<typeof protectedResourceMetadata>;
/** Component `AuthorizationServerMetadata` (RFC 8414). */
export type AuthorizationServerMetadata = ResponseOf<typeof authorizationServerMetadata>;
/** Component `OAuthClientRegistration`: body of `POST /oauth/register` (RFC 7591). */
export type OAuthClientRegistration = RequestBodyOf<typeof registerClient>;
/** Component `OAuthClientInformation`: the 201 of `POST /oauth/register`. */
export type OAuthClientInformation = z.output<typeof ClientInformationSchema>;
/** Component `OAuthTokenRequest`: the form of `POST /oauth/token`. */
export type OAuthTokenRequest = z.input<typeof TokenRequestSchema>;
/** Component `OAuthTokenResponse`. */
export type OAuthTokenResponse = z.output<typeof TokenResponseSchema>;
/** Component `OAuthApproval`: what the authorize page posts. */
export type OAuthApproval = RequestBodyOf<typeof approve>;
/** Component `OAuthApproved`. */
export type OAuthApproved = ResponseOf<typeof approve>;
/** Component `OAuthApprovalMessageRequest`: the client and agent whose approval the wallet is to sign. */
export type OAuthApprovalMessageRequest = RequestBodyOf<typeof approvalMessage>;
/** Component `OAuthApprovalMessage`: the approval's SIWE message and its nonce. */
export type OAuthApprovalMessage = ResponseOf<typeof approvalMessage>;
/** Component `OAuthDenial`: the Deny button's post. */
export type OAuthDenial = RequestBodyOf<typeof deny>;
/** Component `OAuthDenied`. */
export type OAuthDenied = ResponseOf<typeof deny>;
/** Component `OAuthError`: the OAuth endpoints' error shape (RFC 6749 §5.2, RFC 7591 §3.2.2). */
export type OAuthError = z.output<typeof OAuthErrorSchema>;
