/**
 * The conformance driver's credentialed route (scripts/conformance/server.ts): a loopback HTTP
 * server whose `/mcp` forwards to one agent's MCP URL, adding `Authorization: Bearer <credential>`
 * (the suite sends none; the credential stays in the driver, never in the product). Everything
 * else of the request is forwarded as the suite sent it, `Host` and `Origin` included, so the
 * worker itself judges them (DNS-rebinding protection): it sees the Host the suite addressed (the
 * proxy's own `127.0.0.1:PORT`, a loopback name the local stack accepts, or the suite's foreign
 * one). Answers, event streams included, come back unchanged.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CredentialProxy {
  /** `http://127.0.0.1:PORT/mcp`: the URL to give the suite (a loopback URL, as its DNS-rebinding scenario asks). */
  url: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded. `host` is kept on purpose. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function forward(target: URL, credential: string, req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
  if (path !== '/mcp') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('only /mcp is forwarded');
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'authorization') headers[name] = value;
  }
  headers.authorization = `Bearer ${credential}`;
  const upstream = request(
    { protocol: target.protocol, hostname: target.hostname, port: target.port, path: target.pathname, method: req.method, headers },
    (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${err.message}`);
  });
  req.pipe(upstream);
}

/** Starts the proxy on a free loopback port in front of `target` (the agent's MCP URL). */
export async function startCredentialProxy(target: string, credential: string): Promise<CredentialProxy> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => forward(to, credential, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
