import { expect, inject } from 'vitest';
import type { DeploymentInfo } from './stack-info';

export type Deployment = 'mainnet' | 'testnet';

export function deployment(name: Deployment = 'testnet'): DeploymentInfo {
  return inject('stack')[name];
}

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Calls a worker and reads the reply as JSON when it is JSON. */
export async function call<T = any>(
  baseUrl: string,
  path: string,
  init: RequestInit & { json?: unknown; token?: string } = {},
): Promise<JsonResponse<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await resendingFetch(baseUrl + path, { ...init, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/**
 * fetch, sent once more on a new connection when a kept-alive connection was closed before any
 * answer: workerd closes one after refusing an earlier request whose body it never read (a 415 or
 * 413 refuses unread), as a browser does for a reused connection. Only a body that can be sent twice.
 */
export async function resendingFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const body = init.body;
  return fetch(url, init).catch((err: unknown) => {
    const resendable = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (resendable && isClosedSocket(err)) return fetch(url, init);
    throw err;
  });
}

/** Whether a fetch failed because the other side closed the connection before answering. */
function isClosedSocket(err: unknown): boolean {
  // Either way the reused connection was gone before any answer: closed ("other side closed") or,
  // when the request was written into it while workerd closed it, reset (ECONNRESET).
  const cause = err instanceof TypeError ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  return (cause?.code === 'UND_ERR_SOCKET' && cause.message === 'other side closed') || cause?.code === 'ECONNRESET';
}

/** Asserts the one error shape and returns its code. */
export function errorCode(res: JsonResponse): string {
  const body = res.body as { error?: { code?: unknown; message?: unknown }; requestId?: unknown } | undefined;
  if (!body?.error || typeof body.error.code !== 'string' || typeof body.error.message !== 'string') {
    throw new Error(`not an error body (status ${res.status}): ${res.text.slice(0, 300)}`);
  }
  if (body.requestId !== res.headers.get('x-request-id')) {
    throw new Error(`error body requestId ${String(body.requestId)} differs from X-Request-Id ${res.headers.get('x-request-id')}`);
  }
  return body.error.code;
}

/**
 * POSTs a body with node:http and resolves with the response even when the server answers
 * before reading the whole body (an early 413 closes the socket under the writer: EPIPE).
 */
export async function postEarlyAnswer(url: string, body: Uint8Array, options: { chunked: boolean }): Promise<JsonResponse> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers, text, body: text ? JSON.parse(text) : undefined });
      });
    });
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (err) => {
      if (!answered) setTimeout(() => reject(err), 2_000); // a response may still arrive
    });
    for (let i = 0; i < body.length; i += 1_000) req.write(body.slice(i, i + 1_000));
    req.end();
  });
}

/** Asserts an error response's status and its code (the body shape and request id included). */
export function expectError(res: JsonResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(errorCode(res)).toBe(code);
}
