/**
 * Helpers for tests that prove secrets stay secret: a `call` that keeps every response it saw
 * (status, headers, body), and a scan of what was kept for secret values.
 */
import { call, type JsonResponse } from './http';

export interface RecordedResponse {
  /** `METHOD path` of the request, for the failure message. */
  request: string;
  status: number;
  headers: [string, string][];
  text: string;
}

export interface SecretLeak {
  request: string;
  where: string;
  secret: string;
}

export interface ResponseRecorder {
  /** Same as `call` from ./http, and keeps the response. */
  call<T = any>(baseUrl: string, path: string, init?: Parameters<typeof call>[2]): Promise<JsonResponse<T>>;
  /** Every response recorded so far, in order. */
  readonly responses: RecordedResponse[];
  /** Where any of `secrets` appears in a recorded status line, header name or value, or body. */
  leaks(secrets: readonly string[]): SecretLeak[];
}

/** A unique secret value, easy to spot: `SECRET-<label>-<uuid>`. */
export function secretValue(label: string): string {
  return `SECRET-${label}-${crypto.randomUUID()}`;
}

export function responseRecorder(): ResponseRecorder {
  const responses: RecordedResponse[] = [];
  return {
    responses,
    async call<T = any>(baseUrl: string, path: string, init: Parameters<typeof call>[2] = {}) {
      const res = await call<T>(baseUrl, path, init);
      responses.push({
        request: `${(init.method ?? 'GET').toUpperCase()} ${path}`,
        status: res.status,
        headers: [...res.headers.entries()],
        text: res.text,
      });
      return res;
    },
    leaks(secrets) {
      const found: SecretLeak[] = [];
      for (const response of responses) {
        const places: [string, string][] = [
          ['body', response.text],
          ...response.headers.map(([name, value]): [string, string] => [`header ${name}`, `${name}: ${value}`]),
        ];
        for (const secret of secrets) {
          for (const [where, text] of places) {
            if (text.includes(secret)) found.push({ request: response.request, where, secret });
          }
        }
      }
      return found;
    },
  };
}

/** A request as a loopback test server recorded it (see ./mcp-servers). */
interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Headers that carry a credential when present. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];
/** Headers the MCP client or the runtime (workerd, its outbound hop) send on their own. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'content-type',
  'accept',
  'accept-encoding',
  'user-agent',
  'cf-worker',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
]);

/**
 * What is wrong with the headers tool servers received: a header value holding one of
 * `forbidden` (our access tokens), a credential header (`authorization`, `cookie`, or one named
 * in `configured`) whose value is not one of the values configured for it, or a header that is
 * neither a transport header nor a configured credential.
 */
export function credentialProblems(
  requests: readonly ReceivedRequest[],
  options: { forbidden: readonly string[]; configured: Record<string, readonly string[]> },
): string[] {
  const configured = new Map(Object.entries(options.configured).map(([name, values]) => [name.toLowerCase(), values]));
  const credentialNames = new Set([...CREDENTIAL_HEADERS, ...configured.keys()]);
  const problems: string[] = [];
  for (const request of requests) {
    for (const [name, raw] of Object.entries(request.headers)) {
      const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      for (const value of values) {
        for (const secret of options.forbidden) {
          if (value.includes(secret)) problems.push(`${request.method} ${request.path}: header ${name} carries one of our access tokens`);
        }
        if (credentialNames.has(name) && !(configured.get(name) ?? []).includes(value)) {
          problems.push(`${request.method} ${request.path}: header ${name} carries a credential that was not configured`);
        } else if (!credentialNames.has(name) && !TRANSPORT_HEADERS.has(name)) {
          problems.push(`${request.method} ${request.path}: unexpected header ${name}`);
        }
      }
    }
  }
  return problems;
}

export interface ConsoleCapture {
  /** Every line written through console.log/info/warn/error since the capture began. */
  readonly lines: string[];
  restore(): void;
}

/**
 * Records what goes through this process' console, still printing it. Miniflare pipes the
 * worker's stdout and stderr through `console.log`/`console.error` line by line, so this sees the
 * gateway's log of every worker started in the test file.
 */
export function captureConsole(): ConsoleCapture {
  const lines: string[] = [];
  const methods = ['log', 'info', 'warn', 'error'] as const;
  const originals = methods.map((name) => [name, console[name]] as const);
  for (const [name, original] of originals) {
    console[name] = (...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '));
      original.apply(console, args);
    };
  }
  return {
    lines,
    restore() {
      for (const [name, original] of originals) console[name] = original;
    },
  };
}
