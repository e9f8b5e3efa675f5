/**
 * Small loopback HTTP servers for CLI tests: a listener that records every request (to prove a
 * token never arrived, or to stand in for a gateway), and forwarding to a real worker (a proxy
 * that can answer some requests itself or act on the answers it passes on).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export interface Listener {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A server on 127.0.0.1 (free port) that records every request and answers with `handle`. */
export async function listen(
  handle: (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>,
): Promise<Listener> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      void Promise.resolve(handle(recorded, res, req)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function answerJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const FORWARDED = ['content-type', 'authorization', 'idempotency-key', 'accept'];
const HOP_BY_HOP = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding'];

/** Sends the recorded request on to `origin` and returns its answer (status, headers, body). */
export async function forward(
  origin: string,
  req: RecordedRequest,
  raw: IncomingMessage,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = raw.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const answer = await fetch(origin + req.path, {
    method: req.method,
    headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
    redirect: 'manual',
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.includes(name)) out[name] = value;
  });
  return { status: answer.status, headers: out, body: Buffer.from(await answer.arrayBuffer()) };
}

/** Writes a forwarded answer back to the client. */
export function answerForwarded(res: ServerResponse, answer: { status: number; headers: Record<string, string>; body: Buffer }): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
