/**
 * The client's one way to the gateway: a call (an operation of `./operations.ts` with its path
 * parameters, query, body) becomes one `fetch`, with the deadline, the credential (an agent key,
 * or a token with a login when needed and one re-login after a 401), and every failure turned
 * into a `GatewayError` whose message never holds a credential. The methods of the client
 * (`./client.ts`, `./agent-*.ts`) only say which operation and what to send.
 */
import { scrub, scrubValue } from '../scrub';
import { GatewayError } from './errors';
import { type AnswerOf, type OperationId, OPERATIONS, type PathParams, pathOf } from './operations';
import type { CallOptions, GatewayClientOptions, LoginSession } from './options';

const DEFAULT_TIMEOUT_MS = 60_000;

/** What a call sends besides its operation and path parameters. */
export interface CallInit {
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

interface Operation extends CallInit {
  method: string;
  path: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  /** The unread body of an event stream (`CallInit.stream`). */
  stream?: ReadableStream<Uint8Array>;
}

/** The client's connection to one deployment, with its credential. */
export interface Transport {
  readonly baseUrl: string;
  readonly token: string | undefined;
  setToken(token: string | undefined): void;
  /** init → `account.signMessage({ message })` → finish; stores the token and returns the session. */
  login(options?: CallOptions): Promise<LoginSession>;
  /** Operation `id` at the path its parameters fill: the whole answer (status, headers, parsed JSON or a stream). */
  send<Id extends OperationId>(id: Id, params: PathParams<Id>, init?: CallInit): Promise<Answer>;
  /** The same, for the JSON its route answers with 200. */
  json<Id extends OperationId>(id: Id, params: PathParams<Id>, init?: CallInit): Promise<AnswerOf<Id>>;
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

/** The transport of a client; nothing is sent until a call. */
export function createTransport(options: GatewayClientOptions): Transport {
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

  const call = <Id extends OperationId>(id: Id, params: PathParams<Id>, init: CallInit = {}): Promise<Answer> =>
    send({ ...init, method: OPERATIONS[id][0], path: pathOf(id, params) });
  const json = async <Id extends OperationId>(id: Id, params: PathParams<Id>, init: CallInit = {}): Promise<AnswerOf<Id>> =>
    (await call(id, params, init)).body as AnswerOf<Id>;

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
    const init = { signal: callOptions.signal };
    const { message, nonce } = await json('initLogin', {}, { ...init, body: { walletAddress, chainId } });
    const signature = await account.signMessage({ message });
    const { token: fresh } = await json('finishLogin', {}, { ...init, body: { walletAddress, chainId, signature, nonce } });
    setToken(fresh);
    const session: LoginSession = { token: fresh, walletAddress, chainId, expiresAt: tokenExpiresAt(fresh) };
    await options.onToken?.(session);
    return session;
  }

  return {
    baseUrl,
    get token() {
      return token;
    },
    setToken,
    login,
    send: call,
    json,
  };
}
