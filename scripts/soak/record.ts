/**
 * Every request the soak's clients send, as it was answered: the `fetch` the typed client is given
 * records route, credential, start and end (ms since the run began, the end after the whole body), status (0: no answer) and,
 * for an error, the body's `error.code`. Never a body, a token or a key.
 */

export interface Sample {
  route: string;
  /** How the request was authorised: `token` (wallet login), `key` (agent key), `none`. */
  via: 'token' | 'key' | 'none';
  start: number;
  end: number;
  status: number;
  /** The error body's code for a non-2xx answer; `network_error` / `timeout` when none came. */
  code?: string;
}

/** `POST /agent/0xabc…/12/context/k/message` -> `POST /agent/{agent}/context/{key}/message`. */
export function routeOf(method: string, url: string): string {
  const path = new URL(url).pathname
    .replace(/^\/agent\/[^/]+\/[^/]+/, '/agent/{agent}')
    .replace(/\/context\/[^/]+/, '/context/{key}')
    .replace(/\/mcp\/connection\/[^/]+/, '/mcp/connection/{id}')
    .replace(/\/keys\/[^/]+$/, '/keys/{id}');
  return `${method} ${path}`;
}

export class Recorder {
  readonly samples: Sample[] = [];
  constructor(private readonly t0: number) {}

  now(): number {
    return performance.now() - this.t0;
  }

  /** A `fetch` for `createGatewayClient({ fetch })` that records each exchange. */
  fetchFor(via: Sample['via']): (input: string, init: RequestInit) => Promise<Response> {
    return async (input, init) => {
      const route = `${routeOf(init.method ?? 'GET', input)}${via === 'key' ? ' (agent key)' : ''}`;
      const start = this.now();
      let res: Response;
      try {
        res = await fetch(input, init);
      } catch (err) {
        const aborted = init.signal?.aborted === true;
        this.samples.push({ route, via, start, end: this.now(), status: 0, code: aborted ? 'timeout' : 'network_error' });
        throw err;
      }
      let code: string | undefined;
      const text = await res
        .clone()
        .text()
        .catch(() => '');
      if (res.status >= 400) {
        try {
          const body = JSON.parse(text) as { error?: { code?: unknown } };
          code = typeof body.error?.code === 'string' ? body.error.code : 'no_code';
        } catch {
          code = 'not_json';
        }
      }
      this.samples.push({ route, via, start, end: this.now(), status: res.status, ...(code ? { code } : {}) });
      return res;
    };
  }
}
