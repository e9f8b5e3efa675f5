import { inject } from 'vitest';
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
  const res = await fetch(baseUrl + path, { ...init, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = undefined;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
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
