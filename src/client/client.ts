/**
 * A typed client of the gateway's REST API over plain `fetch`: Node 22+ and browsers alike (no
 * Node-only imports). See `createGatewayClient`.
 */
import { scrub, scrubValue } from '../scrub';
import { GatewayError } from './errors';
import { replyStreamOf } from './reply-stream';
import type {
  AccessToken,
  ChatCompletion,
  ChatCompletionRequest,
  McpAnswer,
  McpMessage,
  AgentKeyRevoked,
  OAuthGrantRevoked,
  OAuthGrants,
  AgentKeys,
  AgentRef,
  AgentSummary,
  OwnedTokens,
  AppendedMessage,
  AppendedMessages,
  AppendOptions,
  AuditEntry,
  AuditPage,
  AuditQuery,
  ContextBatchResult,
  ContextKeyPage,
  ContextKeysQuery,
  ContextMessage,
  ContextMessagePage,
  CreatedAgentKey,
  DatabaseFirstStep,
  DatabaseFirstStepResult,
  DatabaseSecondStep,
  DatabaseSettings,
  DatabaseSetup,
  HealthReport,
  LlmSettings,
  LlmSettingsInput,
  LoginChallenge,
  LoginFinish,
  LoginInit,
  McpConnection,
  McpConnectionDeleted,
  McpConnections,
  McpLiveTools,
  McpToolCall,
  McpToolResult,
  MemorySearch,
  MemorySearchHit,
  MemorySearchPage,
  ContextSummary,
  MessagesQuery,
  NewAgentKey,
  NewContextMessage,
  NewMcpConnection,
  ToolServerAuthInput,
  PromptTemplate,
  PromptTemplateInput,
  PromptTemplatePage,
  PromptTemplatesQuery,
  PromptTemplateSummary,
  AgentProfile,
  AgentProfileInput,
  AgentRegistration,
  ReplyOptions,
  ReplyRequest,
  ReplyResult,
  ReplyStream,
  StoredContextMessages,
  UsageQuery,
  UsageReport,
  WalletVerification,
  WalletVerified,
  AuthorizationServerMetadata,
  OAuthApproval,
  OAuthApproved,
  OAuthClientInformation,
  OAuthClientRegistration,
  OAuthTokenRequest,
  OAuthTokenResponse,
  ProtectedResourceMetadata,
} from './types';

/**
 * What `login()` signs with: a viem `LocalAccount` (`privateKeyToAccount`, `mnemonicToAccount`,
 * `toAccount`…) or anything with an address and an EIP-191 `signMessage` (personal_sign).
 */
export interface LoginAccount {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
}

export interface GatewayClientOptions {
  /** The deployment, e.g. `http://127.0.0.1:8788` (a trailing slash is ignored). */
  baseUrl: string;
  /** An access token from an earlier login. */
  token?: string;
  /**
   * An agent key (`agk_...`, from `createAgentKey`) sent instead of a token: a pipeline holds no
   * wallet. It is never replaced by a login, and a 401 with it is final (revoked, expired).
   */
  apiKey?: string;
  /**
   * Enables `login()`; with it, an agent-scoped call made without a token logs in first, and a
   * 401 answer to an agent-scoped call logs in again once and retries the call once (there is no
   * refresh endpoint).
   */
  login?: { account: LoginAccount; chainId: number };
  /** Replaces the global `fetch` (tests, instrumentation, other runtimes). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Deadline of one request including its body, ms (default 60,000; 0 for none). */
  timeoutMs?: number;
  /** Called with every new token the client obtains (`login()` and re-logins), e.g. to save it. */
  onToken?: (session: LoginSession) => void | Promise<void>;
}

/** What a login produced. */
export interface LoginSession {
  token: string;
  walletAddress: string;
  chainId: number;
  /** From the token's `exp` claim, ISO 8601; null when the token carries none. */
  expiresAt: string | null;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The client. A method named after an operation of the OpenAPI document carries its
 * `operationId` as its name (`getHealth`, `initLogin`, … and on `AgentClient` `listContextKeys`,
 * `appendMessages`, …); `health` and `summary` are older names of `getHealth` and `getAgent`.
 */
export interface GatewayClient {
  readonly baseUrl: string;
  /** The current access token (undefined before a login). Handle with care: it is a credential. */
  readonly token: string | undefined;
  setToken(token: string | undefined): void;

  /** `GET /health` (operationId `getHealth`): the report, for 200 and 503 alike. */
  getHealth(options?: CallOptions): Promise<HealthReport>;
  /** The same as `getHealth`. */
  health(options?: CallOptions): Promise<HealthReport>;
  /** `POST /auth/jwt/init`. */
  initLogin(body: LoginInit, options?: CallOptions): Promise<LoginChallenge>;
  /** `POST /auth/jwt/finish`. Does not store the token: `login()` does. */
  finishLogin(body: LoginFinish, options?: CallOptions): Promise<AccessToken>;
  /** `POST /wallet/verify` (chat pairing). */
  verifyWallet(body: WalletVerification, options?: CallOptions): Promise<WalletVerified>;
  /** init → `account.signMessage({ message })` → finish; stores the token and returns the session. */
  login(options?: CallOptions): Promise<LoginSession>;
  /**
   * `GET /wallet/collections/{collection}/tokens`: the logged-in wallet's own tokens of a
   * registered collection (ERC-721 Enumerable; `enumerable: false` and no tokens otherwise).
   * Needs the wallet's token (logs in when the client can); an agent key is refused.
   */
  listOwnedTokens(collection: AgentRef['collection'], options?: CallOptions): Promise<OwnedTokens>;
  /** The same as `listOwnedTokens`. */
  ownedTokens(collection: AgentRef['collection'], options?: CallOptions): Promise<OwnedTokens>;

  /** `GET /.well-known/oauth-protected-resource/agent/{c}/{t}/mcp` (RFC 9728). */
  getProtectedResourceMetadata(
    collection: AgentRef['collection'],
    tokenId: AgentRef['tokenId'],
    options?: CallOptions,
  ): Promise<ProtectedResourceMetadata>;
  /** `GET /.well-known/oauth-authorization-server` (RFC 8414). */
  getAuthorizationServerMetadata(options?: CallOptions): Promise<AuthorizationServerMetadata>;
  /** `POST /oauth/register` (RFC 7591). Its errors are OAuth's `{ error, error_description }`. */
  registerOAuthClient(body: OAuthClientRegistration, options?: CallOptions): Promise<OAuthClientInformation>;
  /** `POST /oauth/token`, form-encoded (code or refresh exchange; revocation with `token`). */
  oauthToken(form: OAuthTokenRequest, options?: CallOptions): Promise<OAuthTokenResponse>;
  /** `POST /oauth/authorize`: what the authorize page posts after the wallet signed. */
  oauthApprove(body: OAuthApproval, options?: CallOptions): Promise<OAuthApproved>;

  /** The agent-scoped API of one agent (`/agent/{collection}/{tokenId}/…`). */
  agent(collection: AgentRef['collection'], tokenId: AgentRef['tokenId']): AgentClient;
}

export interface AgentClient {
  readonly collection: string;
  readonly tokenId: string;
  /** The path prefix `/agent/{collection}/{tokenId}`. */
  readonly path: string;

  /** `GET …` (operationId `getAgent`): the agent after the three gates. */
  getAgent(options?: CallOptions): Promise<AgentSummary>;
  /** The same as `getAgent`. */
  summary(options?: CallOptions): Promise<AgentSummary>;

  /** `GET …/contexts/keys`: one page. */
  listContextKeys(query?: ContextKeysQuery, options?: CallOptions): Promise<ContextKeyPage>;
  /**
   * Every page of keys matching the query, walked by keyset cursor (`nextAfter` → `after`, 100 per
   * page unless given), from the start or from `query.after`: keys created meanwhile never shift it.
   */
  contextKeyPages(query?: Omit<ContextKeysQuery, 'page'>, options?: CallOptions): AsyncGenerator<ContextKeyPage, void, undefined>;
  /** Every key matching the query, walking all pages by cursor (see `contextKeyPages`). */
  contextKeys(query?: Omit<ContextKeysQuery, 'page'>, options?: CallOptions): AsyncGenerator<string, void, undefined>;
  /** `POST …/context`: 200 with an empty body; a duplicate is 400 `context_exists`. */
  createContext(key: string, options?: CallOptions): Promise<void>;
  /** `POST …/contexts`: up to 100 keys, a result per key. */
  createContexts(keys: string[], options?: CallOptions): Promise<ContextBatchResult>;

  /** `POST …/context/{key}/message`. */
  appendMessage(key: string, message: NewContextMessage, options?: AppendOptions): Promise<AppendedMessage>;
  /** `POST …/context/{key}/messages`: up to 100, atomically and in order. */
  appendMessages(key: string, messages: NewContextMessage[], options?: AppendOptions): Promise<AppendedMessages>;
  /** `GET …/context/{key}/messages`: one page. */
  readMessages(key: string, query?: MessagesQuery, options?: CallOptions): Promise<ContextMessagePage>;
  /** Every page of a context's messages, in order. */
  messagePages(
    key: string,
    query?: Omit<MessagesQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<ContextMessagePage, void, undefined>;
  /** `GET …/context/{key}/summary`: the latest summary of what replies left out (404 `summary_not_found` when none). */
  readSummary(key: string, options?: CallOptions): Promise<ContextSummary>;
  /** Every message of a context, in stored order, across all pages (100 per page unless given). */
  messages(key: string, query?: Omit<MessagesQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<ContextMessage, void, undefined>;

  /**
   * `POST …/memory/search` (operationId `searchMemory`): one page of hits across the agent's
   * contexts, best first; pass `nextCursor` as `cursor` with the same query and filters to read on.
   */
  searchMemory(request: MemorySearch, options?: CallOptions): Promise<MemorySearchPage>;
  /** The same as `searchMemory`. */
  search(request: MemorySearch, options?: CallOptions): Promise<MemorySearchPage>;
  /** Every page of a search, following `nextCursor` from the start (or from `request.cursor`). */
  searchPages(request: MemorySearch, options?: CallOptions): AsyncGenerator<MemorySearchPage, void, undefined>;
  /** Every hit of a search, best first, across all pages. */
  searchHits(request: MemorySearch, options?: CallOptions): AsyncGenerator<MemorySearchHit, void, undefined>;

  /** `GET …/llm/settings` (404 `llm_settings_not_found` when never set). */
  getLlmSettings(options?: CallOptions): Promise<LlmSettings>;
  /** `POST …/llm/settings`. */
  saveLlmSettings(settings: LlmSettingsInput, options?: CallOptions): Promise<LlmSettings>;
  /** `GET …/prompt-template/{key}`. */
  getPromptTemplate(key: string, options?: CallOptions): Promise<PromptTemplate>;
  /** `POST …/prompt-template/{key}`. */
  savePromptTemplate(key: string, template: PromptTemplateInput, options?: CallOptions): Promise<PromptTemplate>;
  /** `GET …/prompt-templates`: one page of the agent's templates (keys in byte order, not the texts). */
  listPromptTemplates(query?: PromptTemplatesQuery, options?: CallOptions): Promise<PromptTemplatePage>;
  /** Every template of the agent (key, description, length), across all pages (100 per page unless given). */
  promptTemplates(
    query?: Omit<PromptTemplatesQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<PromptTemplateSummary, void, undefined>;

  /** `GET …/profile` (owner's token only; 404 `profile_not_found` when never set). */
  getProfile(options?: CallOptions): Promise<AgentProfile>;
  /** `PUT …/profile` (owner's token only): replaces the profile the registration file presents. */
  setProfile(profile: AgentProfileInput, options?: CallOptions): Promise<AgentProfile>;
  /** `GET …/registration.json`: the public ERC-8004 registration file, fetched without a credential. */
  getRegistration(options?: CallOptions): Promise<AgentRegistration>;

  /** `POST …/database/settings/first-step`. */
  databaseFirstStep(setup: DatabaseFirstStep, options?: CallOptions): Promise<DatabaseFirstStepResult>;
  /** `POST …/database/settings/second-step`. */
  databaseSecondStep(step: DatabaseSecondStep, options?: CallOptions): Promise<DatabaseSetup>;
  /** `GET …/database/settings`. */
  getDatabaseSettings(options?: CallOptions): Promise<DatabaseSettings>;

  /** `POST …/keys` (owner's token only): the key is in this answer only. */
  createAgentKey(input: NewAgentKey, options?: CallOptions): Promise<CreatedAgentKey>;
  /** `GET …/keys`: live keys, never the key itself. */
  listAgentKeys(options?: CallOptions): Promise<AgentKeys>;
  /** `DELETE …/keys/{id}`: revoked at once. */
  revokeAgentKey(id: string, options?: CallOptions): Promise<AgentKeyRevoked>;

  /** `GET …/oauth/grants` (owner's token only): the MCP clients this wallet approved for the agent, never a token. */
  listOAuthGrants(options?: CallOptions): Promise<OAuthGrants>;
  /** `DELETE …/oauth/grants/{grantId}`: the grant and its tokens revoked at once. */
  revokeOAuthGrant(grantId: string, options?: CallOptions): Promise<OAuthGrantRevoked>;

  /** `GET …/audit` (owner's token only): one page of the audit trail, newest first. */
  listAuditEntries(query?: AuditQuery, options?: CallOptions): Promise<AuditPage>;
  /** Every page of the audit trail, newest first, following `nextCursor` (100 per page unless given). */
  auditPages(query?: Omit<AuditQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<AuditPage, void, undefined>;
  /** Every entry of the audit trail, newest first, across all pages. */
  audit(query?: Omit<AuditQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<AuditEntry, void, undefined>;
  /** `GET …/usage` (owner's token only): token usage over UTC days `from`..`to` (default today), grouped by day, credential or context. */
  getUsage(query?: UsageQuery, options?: CallOptions): Promise<UsageReport>;

  /** `GET …/mcp/connections`. */
  listMcpConnections(options?: CallOptions): Promise<McpConnections>;
  /** `POST …/mcp/connection`. */
  addMcpConnection(connection: NewMcpConnection, options?: CallOptions): Promise<McpConnection>;
  /** `DELETE …/mcp/connection/{id}`. */
  removeMcpConnection(id: string, options?: CallOptions): Promise<McpConnectionDeleted>;
  /** `GET …/mcp/connection/{id}/tools`. */
  listMcpTools(id: string, options?: CallOptions): Promise<McpLiveTools>;
  /** `POST …/mcp/connection/{id}/tools/call`. */
  callMcpTool(id: string, call: McpToolCall, options?: CallOptions): Promise<McpToolResult>;
  /**
   * `PUT …/mcp/connection/{id}/auth`: enter your own credential (after a transfer: `credential:
   * 'reenter_required'`); `options.url`, the connection's full URL, when another wallet registered it.
   */
  replaceMcpAuth(id: string, auth: ToolServerAuthInput, options?: CallOptions & { url?: string }): Promise<McpConnection>;

  /**
   * `POST …/context/{key}/reply` (operationId `replyToContext`): the agent answers (its model over
   * the context, prompt template and tools); the reply is stored as one `assistant` message.
   */
  replyToContext(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyResult>;
  /** The same as `replyToContext`. */
  reply(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyResult>;
  /**
   * The same, streamed (`Accept: text/event-stream`): resolves once the gateway accepted the
   * request (a refusal throws `GatewayError` with its status and code), with the events in order:
   * `delta`, `tool_call`, `tool_result`, then `done` (the answer, after it is stored) or `error`.
   */
  replyStream(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyStream>;
  /**
   * `POST …/v1/chat/completions` (operationId `createChatCompletion`): the same reply in OpenAI's
   * shape, not streamed (for a stream, point an OpenAI client at `${path}/v1`).
   */
  createChatCompletion(request: Omit<ChatCompletionRequest, 'stream' | 'stream_options'>, options?: CallOptions): Promise<ChatCompletion>;

  /**
   * `POST …/mcp` (operationId `agentMcp`): one JSON-RPC message to the agent's MCP server (an MCP
   * client, e.g. the SDK's `StreamableHTTPClientTransport` on `agentMcpUrl`, is the usual way);
   * null for a notification or response (202, no body).
   */
  agentMcp(message: McpMessage, options?: CallOptions): Promise<McpAnswer | null>;
}

const DEFAULT_TIMEOUT_MS = 60_000;

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** A form-encoded body (OAuth's token endpoint) instead of JSON. */
  form?: Record<string, string | undefined>;
  /** Agent-scoped: sends the token, logs in when needed. */
  agent?: boolean;
  signal?: AbortSignal | undefined;
  /** Statuses besides 2xx whose JSON body is a result (health's 503). */
  okStatuses?: number[];
  /** A 2xx `text/event-stream` answer is handed back unread (`Answer.stream`). */
  stream?: boolean;
  /** Replaces the client's `timeoutMs`; for a stream, the deadline of its start. */
  timeoutMs?: number | undefined;
}

interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  /** The unread body of an event stream (`Operation.stream`). */
  stream?: ReadableStream<Uint8Array>;
}

/** The `exp` claim of a JWT as ISO 8601, or null (not a JWT, no exp). Reads, never verifies. */
export function tokenExpiresAt(token: string): string | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const claims = JSON.parse(atob(base64)) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? new Date(claims.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}

function describeCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return err.message;
}

function isErrorBody(value: unknown): value is { error: { code: string; message: string; details?: unknown }; requestId?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** Creates a client. Nothing is sent until a method is called. */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const loginWith = options.login;
  const apiKey = options.apiKey;
  let token = options.token;
  /** Every token this client has held (and its agent key): scrubbed from error messages. */
  const secrets = new Set<string>([token, apiKey].filter((s): s is string => Boolean(s)));
  let pendingLogin: Promise<LoginSession> | undefined;

  const setToken = (value: string | undefined) => {
    token = value;
    if (value) secrets.add(value);
  };

  async function sendOnce(op: Operation, bearer: string | undefined): Promise<Answer> {
    const operation = `${op.method} ${op.path}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(op.query ?? {})) if (value !== undefined) params.set(name, String(value));
    const qs = params.toString();
    const url = `${baseUrl}${op.path}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...op.headers };
    if (op.body !== undefined) headers['content-type'] = 'application/json';
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(op.form ?? {})) if (value !== undefined) form.set(name, value);
    if (op.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (bearer) headers.authorization = `Bearer ${bearer}`;

    const controller = new AbortController();
    let timedOut = false;
    let streaming = false;
    const deadline = op.timeoutMs ?? timeoutMs;
    const timer =
      deadline > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, deadline)
        : undefined;
    const onAbort = () => controller.abort();
    if (op.signal?.aborted) controller.abort();
    op.signal?.addEventListener('abort', onAbort, { once: true });
    const scrubbing = { secrets: [...secrets] };
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, {
        method: op.method,
        headers,
        body: op.form !== undefined ? form.toString() : op.body === undefined ? undefined : JSON.stringify(op.body),
        signal: controller.signal,
        redirect: 'manual',
      });
      if (op.stream && res.ok && res.body && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        streaming = true; // the caller's signal keeps aborting the body
        return { status: res.status, headers: res.headers, body: undefined, stream: res.body };
      }
      text = await res.text();
    } catch (err) {
      if (timedOut) throw new GatewayError({ status: 0, code: 'timeout', message: `no answer within ${deadline} ms`, operation });
      if (op.signal?.aborted)
        throw new GatewayError({ status: 0, code: 'aborted', message: 'the request was aborted', operation, cause: op.signal.reason });
      throw new GatewayError({
        status: 0,
        code: 'network_error',
        message: scrub(`request failed: ${describeCause(err)}`, scrubbing),
        operation,
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (!streaming) op.signal?.removeEventListener('abort', onAbort);
    }

    const requestId = res.headers.get('x-request-id') ?? undefined;
    let body: unknown;
    let parseFailed = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        parseFailed = true;
      }
    }
    const ok = (res.status >= 200 && res.status < 300) || (op.okStatuses ?? []).includes(res.status);
    if (ok && !parseFailed) return { status: res.status, headers: res.headers, body };

    const retryAfter = Number(res.headers.get('retry-after'));
    const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 && res.headers.has('retry-after') ? retryAfter : undefined;
    if (ok) {
      throw new GatewayError({
        status: res.status,
        code: 'invalid_response',
        message: `answer ${res.status} is not JSON`,
        requestId,
        operation,
      });
    }
    if (isErrorBody(body)) {
      throw new GatewayError({
        status: res.status,
        code: body.error.code,
        message: scrub(body.error.message, scrubbing),
        requestId: typeof body.requestId === 'string' ? body.requestId : requestId,
        details: scrubValue(body.error.details, scrubbing),
        operation,
        retryAfterSeconds,
      });
    }
    throw new GatewayError({
      status: res.status,
      code: 'http_error',
      message: `HTTP ${res.status}${res.statusText ? ` ${scrub(res.statusText, scrubbing)}` : ''}`,
      requestId,
      operation,
      retryAfterSeconds,
    });
  }

  /** Logs in again unless another call already replaced `stale`; concurrent callers share one login. */
  async function refresh(stale: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    if (token !== undefined && token !== stale) return;
    pendingLogin ??= login({ signal }).finally(() => {
      pendingLogin = undefined;
    });
    await pendingLogin;
  }

  async function send(op: Operation): Promise<Answer> {
    if (!op.agent) return sendOnce(op, undefined);
    if (apiKey !== undefined) return sendOnce(op, apiKey);
    let justLoggedIn = false;
    if (token === undefined && loginWith) {
      await refresh(undefined, op.signal);
      justLoggedIn = true;
    }
    const used = token;
    try {
      return await sendOnce(op, used);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.status !== 401 || !loginWith || justLoggedIn) throw err;
    }
    await refresh(used, op.signal);
    return sendOnce(op, token);
  }

  async function json<T>(op: Operation): Promise<T> {
    return (await send(op)).body as T;
  }

  async function login(callOptions: CallOptions = {}): Promise<LoginSession> {
    if (!loginWith) {
      throw new GatewayError({
        status: 0,
        code: 'login_unavailable',
        message: 'login() needs a login account: createGatewayClient({ login: { account, chainId } })',
      });
    }
    const { account, chainId } = loginWith;
    const walletAddress = account.address;
    const { message, nonce } = await client.initLogin({ walletAddress, chainId }, callOptions);
    const signature = await account.signMessage({ message });
    const { token: fresh } = await client.finishLogin({ walletAddress, chainId, signature, nonce }, callOptions);
    setToken(fresh);
    const session: LoginSession = { token: fresh, walletAddress, chainId, expiresAt: tokenExpiresAt(fresh) };
    await options.onToken?.(session);
    return session;
  }

  const client: GatewayClient = {
    baseUrl,
    get token() {
      return token;
    },
    setToken,
    getHealth: (o = {}) => json<HealthReport>({ method: 'GET', path: '/health', okStatuses: [503], signal: o.signal }),
    health: (o = {}) => client.getHealth(o),
    initLogin: (body, o = {}) => json<LoginChallenge>({ method: 'POST', path: '/auth/jwt/init', body, signal: o.signal }),
    finishLogin: (body, o = {}) => json<AccessToken>({ method: 'POST', path: '/auth/jwt/finish', body, signal: o.signal }),
    verifyWallet: (body, o = {}) => json<WalletVerified>({ method: 'POST', path: '/wallet/verify', body, signal: o.signal }),
    login,
    // `agent: true`: the wallet's token, with a login when needed, as on agent routes.
    listOwnedTokens: (collection, o = {}) =>
      json<OwnedTokens>({
        method: 'GET',
        path: `/wallet/collections/${encodeURIComponent(String(collection))}/tokens`,
        agent: true,
        signal: o.signal,
      }),
    ownedTokens: (collection, o = {}) => client.listOwnedTokens(collection, o),
    getProtectedResourceMetadata: (collection, tokenId, o = {}) =>
      json<ProtectedResourceMetadata>({
        method: 'GET',
        path: `/.well-known/oauth-protected-resource/agent/${encodeURIComponent(String(collection))}/${String(tokenId)}/mcp`,
        signal: o.signal,
      }),
    getAuthorizationServerMetadata: (o = {}) =>
      json<AuthorizationServerMetadata>({ method: 'GET', path: '/.well-known/oauth-authorization-server', signal: o.signal }),
    registerOAuthClient: (body, o = {}) =>
      json<OAuthClientInformation>({ method: 'POST', path: '/oauth/register', body, signal: o.signal }),
    oauthToken: (form, o = {}) => json<OAuthTokenResponse>({ method: 'POST', path: '/oauth/token', form, signal: o.signal }),
    oauthApprove: (body, o = {}) => json<OAuthApproved>({ method: 'POST', path: '/oauth/authorize', body, signal: o.signal }),
    agent(collection, tokenId) {
      return agentClient(String(collection), typeof tokenId === 'string' ? tokenId : tokenId.toString());
    },
  };

  function agentClient(collection: string, tokenId: string): AgentClient {
    const prefix = `/agent/${encodeURIComponent(collection)}/${encodeURIComponent(tokenId)}`;
    const get = <T>(rest: string, signal: AbortSignal | undefined, query?: Operation['query']) =>
      json<T>({ method: 'GET', path: prefix + rest, query, agent: true, signal });
    const post = <T>(rest: string, body: unknown, signal: AbortSignal | undefined, headers?: Record<string, string>) =>
      send({ method: 'POST', path: prefix + rest, body, agent: true, signal, headers }).then((a) => ({
        body: a.body as T,
        headers: a.headers,
      }));
    const ctx = (key: string) => `/context/${encodeURIComponent(key)}`;
    const idem = (o: AppendOptions): Record<string, string> | undefined =>
      o.idempotencyKey === undefined ? undefined : { 'idempotency-key': o.idempotencyKey };
    const replayed = (headers: Headers) => headers.get('idempotent-replayed') === 'true';
    const replyOperation = (key: string, body: ReplyRequest, o: ReplyOptions, stream: boolean): Operation => ({
      method: 'POST',
      path: `${prefix}${ctx(key)}/reply`,
      body,
      agent: true,
      signal: o.signal,
      headers: { ...idem(o), ...(stream ? { accept: 'text/event-stream' } : {}) },
      stream,
      timeoutMs: o.timeoutMs,
    });

    const self: AgentClient = {
      collection,
      tokenId,
      path: prefix,
      getAgent: (o = {}) => get<AgentSummary>('', o.signal),
      summary: (o = {}) => self.getAgent(o),
      listContextKeys: (q = {}, o = {}) =>
        get<ContextKeyPage>('/contexts/keys', o.signal, {
          page: q.page,
          elementsPerPage: q.elementsPerPage,
          search: q.search,
          sortBy: q.sortBy,
          sortDirection: q.sortDirection,
          after: q.after,
        }),
      async *contextKeyPages(q = {}, o = {}) {
        const elementsPerPage = q.elementsPerPage ?? 100;
        let after = q.after;
        for (;;) {
          const page = await self.listContextKeys({ ...q, elementsPerPage, after }, o);
          // A gateway without the cursor leaves nextAfter out: stopping there would drop keys silently.
          if (page.nextAfter === undefined) {
            throw new GatewayError({
              status: 200,
              code: 'invalid_response',
              message: 'the key page has no nextAfter (a gateway older than the key cursor)',
              operation: `GET ${prefix}/contexts/keys`,
            });
          }
          yield page;
          if (page.nextAfter === null || page.contextKeys.length === 0) return;
          after = page.nextAfter;
        }
      },
      async *contextKeys(q = {}, o = {}) {
        for await (const page of self.contextKeyPages(q, o)) yield* page.contextKeys;
      },
      createContext: async (key, o = {}) => {
        await post<undefined>('/context', { key }, o.signal);
      },
      createContexts: async (keys, o = {}) => (await post<ContextBatchResult>('/contexts', { keys }, o.signal)).body,
      appendMessage: async (key, message, o = {}) => {
        const answer = await post<AppendedMessage['message']>(`${ctx(key)}/message`, message, o.signal, idem(o));
        return { message: answer.body, replayed: replayed(answer.headers) };
      },
      appendMessages: async (key, messages, o = {}) => {
        const answer = await post<StoredContextMessages>(`${ctx(key)}/messages`, { messages }, o.signal, idem(o));
        return { messages: answer.body.messages, replayed: replayed(answer.headers) };
      },
      readMessages: (key, q = {}, o = {}) =>
        get<ContextMessagePage>(`${ctx(key)}/messages`, o.signal, { limit: q.limit, cursor: q.cursor, order: q.order }),
      async *messagePages(key, q = {}, o = {}) {
        const limit = q.limit ?? 100;
        let cursor: string | undefined;
        for (;;) {
          const page = await self.readMessages(key, { limit, cursor, order: q.order }, o);
          yield page;
          if (!page.hasMore || page.nextCursor === null) return;
          cursor = page.nextCursor;
        }
      },
      readSummary: (key, o = {}) => get<ContextSummary>(`${ctx(key)}/summary`, o.signal),
      async *messages(key, q = {}, o = {}) {
        for await (const page of self.messagePages(key, q, o)) yield* page.messages;
      },
      searchMemory: async (request, o = {}) => (await post<MemorySearchPage>('/memory/search', request, o.signal)).body,
      search: (request, o = {}) => self.searchMemory(request, o),
      async *searchPages(request, o = {}) {
        let cursor = request.cursor;
        for (;;) {
          const page = await self.searchMemory({ ...request, cursor }, o);
          yield page;
          if (page.nextCursor === null || page.hits.length === 0) return;
          cursor = page.nextCursor;
        }
      },
      async *searchHits(request, o = {}) {
        for await (const page of self.searchPages(request, o)) yield* page.hits;
      },
      getLlmSettings: (o = {}) => get<LlmSettings>('/llm/settings', o.signal),
      saveLlmSettings: async (settings, o = {}) => (await post<LlmSettings>('/llm/settings', settings, o.signal)).body,
      getPromptTemplate: (key, o = {}) => get<PromptTemplate>(`/prompt-template/${encodeURIComponent(key)}`, o.signal),
      savePromptTemplate: async (key, template, o = {}) =>
        (await post<PromptTemplate>(`/prompt-template/${encodeURIComponent(key)}`, template, o.signal)).body,
      listPromptTemplates: (q = {}, o = {}) => get<PromptTemplatePage>('/prompt-templates', o.signal, { limit: q.limit, cursor: q.cursor }),
      async *promptTemplates(q = {}, o = {}) {
        const limit = q.limit ?? 100;
        let cursor: string | undefined;
        for (;;) {
          const page = await self.listPromptTemplates({ limit, cursor }, o);
          yield* page.templates;
          if (page.nextCursor === null || page.templates.length === 0) return;
          cursor = page.nextCursor;
        }
      },
      getProfile: (o = {}) => get<AgentProfile>('/profile', o.signal),
      setProfile: (profile, o = {}) =>
        json<AgentProfile>({ method: 'PUT', path: `${prefix}/profile`, body: profile, agent: true, signal: o.signal }),
      getRegistration: (o = {}) => json<AgentRegistration>({ method: 'GET', path: `${prefix}/registration.json`, signal: o.signal }),
      databaseFirstStep: async (setup, o = {}) =>
        (await post<DatabaseFirstStepResult>('/database/settings/first-step', setup, o.signal)).body,
      databaseSecondStep: async (step, o = {}) => (await post<DatabaseSetup>('/database/settings/second-step', step, o.signal)).body,
      getDatabaseSettings: (o = {}) => get<DatabaseSettings>('/database/settings', o.signal),
      createAgentKey: async (input, o = {}) => (await post<CreatedAgentKey>('/keys', input, o.signal)).body,
      listAgentKeys: (o = {}) => get<AgentKeys>('/keys', o.signal),
      getUsage: (q = {}, o = {}) => get<UsageReport>('/usage', o.signal, { from: q.from, to: q.to, groupBy: q.groupBy }),
      revokeAgentKey: (id, o = {}) =>
        json<AgentKeyRevoked>({ method: 'DELETE', path: `${prefix}/keys/${encodeURIComponent(id)}`, agent: true, signal: o.signal }),
      listOAuthGrants: (o = {}) => get<OAuthGrants>('/oauth/grants', o.signal),
      revokeOAuthGrant: (grantId, o = {}) =>
        json<OAuthGrantRevoked>({
          method: 'DELETE',
          path: `${prefix}/oauth/grants/${encodeURIComponent(grantId)}`,
          agent: true,
          signal: o.signal,
        }),
      listAuditEntries: (q = {}, o = {}) => get<AuditPage>('/audit', o.signal, { limit: q.limit, cursor: q.cursor }),
      async *auditPages(q = {}, o = {}) {
        const limit = q.limit ?? 100;
        let cursor: string | undefined;
        for (;;) {
          const page = await self.listAuditEntries({ limit, cursor }, o);
          yield page;
          if (page.nextCursor === null || page.entries.length === 0) return;
          cursor = page.nextCursor;
        }
      },
      async *audit(q = {}, o = {}) {
        for await (const page of self.auditPages(q, o)) yield* page.entries;
      },
      listMcpConnections: (o = {}) => get<McpConnections>('/mcp/connections', o.signal),
      addMcpConnection: async (connection, o = {}) => (await post<McpConnection>('/mcp/connection', connection, o.signal)).body,
      removeMcpConnection: (id, o = {}) =>
        json<McpConnectionDeleted>({
          method: 'DELETE',
          path: `${prefix}/mcp/connection/${encodeURIComponent(id)}`,
          agent: true,
          signal: o.signal,
        }),
      listMcpTools: (id, o = {}) => get<McpLiveTools>(`/mcp/connection/${encodeURIComponent(id)}/tools`, o.signal),
      callMcpTool: async (id, call, o = {}) =>
        (
          await post<McpToolResult>(
            `/mcp/connection/${encodeURIComponent(id)}/tools/call`,
            { name: call.name, arguments: call.arguments ?? {} },
            o.signal,
          )
        ).body,
      reply: (key, request = {}, o = {}) => self.replyToContext(key, request, o),
      replyToContext: async (key, request = {}, o = {}) => {
        const answer = await send(replyOperation(key, request, o, false));
        return { ...(answer.body as ReplyResult), replayed: replayed(answer.headers) };
      },
      replyStream: async (key, request = {}, o = {}) => {
        const op = replyOperation(key, request, o, true);
        const answer = await send(op);
        return replyStreamOf({ ...answer, replayed: replayed(answer.headers) }, `POST ${op.path}`, o.signal);
      },
      createChatCompletion: async (request, o = {}) =>
        (await post<ChatCompletion>('/v1/chat/completions', { ...request, stream: false }, o.signal)).body,
      agentMcp: async (message, o = {}) => {
        const answer = await send({
          method: 'POST',
          path: `${prefix}/mcp`,
          body: message,
          agent: true,
          signal: o.signal,
          headers: { accept: 'application/json, text/event-stream' },
        });
        return answer.status === 202 ? null : (answer.body as McpAnswer);
      },
      replaceMcpAuth: (id, auth, o = {}) =>
        json<McpConnection>({
          method: 'PUT',
          path: `${prefix}/mcp/connection/${encodeURIComponent(id)}/auth`,
          body: { auth, ...(o.url === undefined ? {} : { url: o.url }) },
          agent: true,
          signal: o.signal,
        }),
    };
    return self;
  }

  return client;
}
