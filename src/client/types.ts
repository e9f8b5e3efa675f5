/**
 * Request and response types of the gateway's API, written by hand from the route schemas
 * (`src/*\/*.routes.ts`); the names follow the OpenAPI components of `/openapi.json`
 * (`test/unit/client-types.test.ts` keeps the property names in step with the document).
 *
 * Browser-safe: types only.
 */

/** `0x` + 40 hex. Mixed case must be a valid EIP-55 checksum. */
export type Address = `0x${string}`;
export type Hex = `0x${string}`;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** Every error code the gateway answers with (a stable contract: switch on it). */
export type ErrorCode =
  | 'validation_failed'
  | 'invalid_json'
  | 'invalid_encoding'
  | 'nul_character'
  | 'context_exists'
  | 'agent_kind_not_supported'
  | 'idempotency_key_reused'
  | 'invalid_tool_server_url'
  | 'mcp_connection_exists'
  | 'invalid_tool_schema'
  | 'invalid_tool_arguments'
  | 'tool_server_invalid'
  | 'tool_server_credential_rejected'
  | 'database_not_found'
  | 'database_target_refused'
  | 'tool_server_oauth_unsupported'
  | 'tool_snapshot_too_large'
  | 'mcp_connection_limit'
  | 'tool_arguments_too_large'
  | 'database_table_not_offered'
  | 'unauthorized'
  | 'token_expired'
  | 'token_wrong_chain'
  | 'login_not_started'
  | 'login_expired'
  | 'nonce_used'
  | 'login_message_invalid'
  | 'signature_invalid'
  | 'message_purpose_mismatch'
  | 'not_owner'
  | 'not_found'
  | 'agent_not_found'
  | 'context_not_found'
  | 'llm_settings_not_found'
  | 'prompt_template_not_found'
  | 'mcp_connection_not_found'
  | 'tool_not_found'
  | 'database_setup_not_found'
  | 'method_not_allowed'
  | 'credential_reentry_required'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'misconfigured'
  | 'tool_server_unreachable'
  | 'database_unreachable'
  | 'tool_server_failed_dependency'
  | 'tool_server_error'
  | 'tool_server_timeout'
  | 'dependency_unavailable';

/**
 * Codes the client itself produces: `network_error` (no HTTP answer: connection refused, reset,
 * DNS), `timeout` (no answer within `timeoutMs`), `aborted` (the caller's signal),
 * `invalid_response` (an answer that is not the documented JSON), `http_error` (an error status
 * without the gateway's error body, e.g. from a proxy), `login_unavailable` (login() without a
 * login account).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'aborted' | 'invalid_response' | 'http_error' | 'login_unavailable';

/** `{ error: { code, message, details? }, requestId }`: the one error body (component `Error`). */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
  requestId: string;
}

/** `details` of `validation_failed`. */
export interface ValidationIssues {
  issues: { path: string; message: string }[];
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/** Component `DependencyCheck`. */
export interface DependencyCheck {
  ok: boolean;
  latencyMs: number;
  problem?: string;
}

/** Component `HealthReport`: `GET /health` (200 and 503 alike). */
export interface HealthReport {
  status: 'ok' | 'unavailable';
  chainId: number;
  checks: { database: DependencyCheck; chain: DependencyCheck };
}

// ---------------------------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------------------------

/** Component `LoginInit`: body of `POST /auth/jwt/init`. */
export interface LoginInit {
  walletAddress: Address | string;
  chainId: number;
  /** `login` (default) or `pairing` (a message for `POST /wallet/verify`). */
  purpose?: 'login' | 'pairing';
}

/** Component `LoginChallenge`: the EIP-4361 message to sign, unchanged. */
export interface LoginChallenge {
  nonce: string;
  message: string;
}

/** Component `LoginFinish`: body of `POST /auth/jwt/finish`. */
export interface LoginFinish {
  walletAddress: Address | string;
  chainId: number;
  signature: Hex | string;
  /** Optional: the nonce init returned, for a direct lookup of the signed message. */
  nonce?: string;
}

/** Component `AccessToken`. */
export interface AccessToken {
  token: string;
}

/** Component `WalletVerification`: body of `POST /wallet/verify` (chat pairing). */
export interface WalletVerification {
  walletAddress: Address | string;
  chainId: number;
  message: string;
  signature: Hex | string;
}

/** Component `WalletVerified`. */
export interface WalletVerified {
  verified: true;
  walletAddress: string;
  chainId: number;
}

// ---------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------

/** Component `AgentSummary`: `GET /agent/{collection}/{tokenId}`. */
export interface AgentSummary {
  chainId: number;
  agentCollectionAddress: string;
  agentTokenId: string;
  kind: string;
  owner: string;
}

/** An agent: its collection address and token id (decimal; bigint and number are accepted). */
export interface AgentRef {
  collection: Address | string;
  tokenId: bigint | number | string;
}

// ---------------------------------------------------------------------------------------------
// Contexts and messages
// ---------------------------------------------------------------------------------------------

export type Role = 'user' | 'system' | 'assistant';

/** Query of `GET …/contexts/keys`. */
export interface ContextKeysQuery {
  /** 1-indexed (default 1). */
  page?: number;
  /** Default 10, clamped to 1..100 by the gateway. */
  elementsPerPage?: number;
  /** Case-insensitive substring; `% _ \` match literally. */
  search?: string;
  sortBy?: 'key';
  sortDirection?: 'asc' | 'desc';
}

/** Component `NewContext`: body of `POST …/context`. */
export interface NewContext {
  key: string;
}

/** Component `NewContexts`: body of `POST …/contexts` (1..100 keys). */
export interface NewContexts {
  keys: string[];
}

/** Component `ContextKeyPage`. */
export interface ContextKeyPage {
  page: number;
  elementsPerPage: number;
  totalElements: number;
  contextKeys: string[];
}

/** One entry of component `ContextBatchResult`. */
export interface ContextBatchResultItem {
  key: string;
  status: 'created' | 'exists' | 'invalid';
  reason?: 'too_short' | 'too_long' | 'bad_characters' | 'reserved';
  message?: string;
}

/** Component `ContextBatchResult`: `POST …/contexts`. */
export interface ContextBatchResult {
  results: ContextBatchResultItem[];
}

/** Component `NewContextMessage`: one message to append. */
export interface NewContextMessage {
  message: string;
  role: Role;
}

/** Component `NewContextMessages`: body of `POST …/context/{key}/messages` (1..100). */
export interface NewContextMessages {
  messages: NewContextMessage[];
}

/** Component `ContextMessage`: a stored message. */
export interface ContextMessage {
  /** Increasing within a context, in commit order. */
  id: number;
  role: Role;
  message: string;
  createdAt: string;
}

/** Component `StoredContextMessages`: answer of `POST …/context/{key}/messages`. */
export interface StoredContextMessages {
  messages: ContextMessage[];
}

/** Component `ContextMessagePage`: `GET …/context/{key}/messages`. */
export interface ContextMessagePage {
  messages: ContextMessage[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Query of `GET …/context/{key}/messages`. */
export interface MessagesQuery {
  /** 1..100, default 50. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

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

/**
 * Whether a stored secret can be used for the agent's current owner: `none` (none needed or
 * stored), `set` (entered by the current owner), `reenter_required` (entered by an earlier owner
 * of the agent, or before owners were recorded: never used for you, enter your own).
 */
export type CredentialState = 'set' | 'reenter_required' | 'none';

/** Component `LlmSettings`. */
export interface LlmSettings {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  /** Whether an API key entered by the agent's current owner is stored (the key itself is never returned). */
  apiKeySet: boolean;
  /** `reenter_required`: the stored key is an earlier owner's, never used for you; save your own `apiKey`. */
  credential: CredentialState;
  updatedAt: string;
}

/** Component `LlmSettingsInput`. */
export interface LlmSettingsInput {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  /** Omit to keep the stored key; null removes it. */
  apiKey?: string | null;
}

/** Component `PromptTemplate`. */
export interface PromptTemplate {
  key: string;
  template: string;
  description: string | null;
  updatedAt: string;
}

/** Component `PromptTemplateInput`. */
export interface PromptTemplateInput {
  template: string;
  description?: string | null;
}

/** Component `DatabaseFirstStep`. */
export interface DatabaseFirstStep {
  host: string;
  /** Default 5432. */
  port?: number;
  database: string;
  user: string;
  /** Stored encrypted in the vault; never returned. */
  password: string;
  /** Default `require`. */
  ssl?: 'require' | 'disable';
}

/** Component `DatabaseFirstStepResult`. */
export interface DatabaseFirstStepResult {
  setupId: string;
  tables: string[];
}

/** Component `DatabaseSecondStep`. */
export interface DatabaseSecondStep {
  setupId: string;
  tables: string[];
}

/** Component `DatabaseSetup`. */
export interface DatabaseSetup {
  setupId: string;
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: 'require' | 'disable';
  status: 'pending' | 'active';
  /** `reenter_required`: an earlier owner of the agent entered the password; run the first step again. */
  credential: 'set' | 'reenter_required';
  offeredTables: string[];
  activeTables: string[] | null;
  createdAt: string;
  activatedAt: string | null;
}

/** Component `DatabaseSettings`. */
export interface DatabaseSettings {
  active: DatabaseSetup | null;
  pending: DatabaseSetup[];
}

// ---------------------------------------------------------------------------------------------
// Tool servers (MCP)
// ---------------------------------------------------------------------------------------------

/** Component `ToolServerAuthInput`. */
export type ToolServerAuthInput =
  | { type: 'none' }
  | { type: 'bearer'; value: string }
  | { type: 'header'; headerName: string; value: string };

/** Component `NewMcpConnection`. */
export interface NewMcpConnection {
  url: string;
  name?: string;
  auth: ToolServerAuthInput;
}

/** Component `McpConnection`. */
export interface McpConnection {
  id: string;
  url: string;
  name: string | null;
  auth: { type: 'none' | 'bearer' | 'header'; headerName?: string; valueSet: boolean };
  /** `reenter_required`: tool calls answer 409 `credential_reentry_required` until you enter yours (`replaceMcpAuth`). */
  credential: CredentialState;
  tools: { name: string; description: string }[];
  createdAt: string;
}

/** Component `McpConnectionAuth`: the body of `PUT …/mcp/connection/{id}/auth`. */
export interface McpConnectionAuth {
  auth: ToolServerAuthInput;
}

/** Component `McpConnections`. */
export interface McpConnections {
  connections: McpConnection[];
}

/** Component `McpConnectionDeleted`. */
export interface McpConnectionDeleted {
  id: string;
  deleted: true;
}

/** Component `McpTool`. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Component `McpLiveTools`. */
export interface McpLiveTools {
  tools: McpTool[];
  health: { ok: true; latencyMs: number };
}

/** Component `McpToolCall`. */
export interface McpToolCall {
  name: string;
  /** Default `{}`. */
  arguments?: Record<string, unknown>;
}

/** Component `McpToolResult`: `isError: true` is still a 200. */
export interface McpToolResult {
  content: ({ type: string } & Record<string, unknown>)[];
  isError?: boolean;
  [extra: string]: unknown;
}
