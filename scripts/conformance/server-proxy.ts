/**
 * The conformance driver's credentialed route (scripts/conformance/server.ts): a loopback HTTP
 * server that forwards every request to one worker, and on one agent's MCP path adds
 * `Authorization: Bearer <credential>` (the suite sends none; the credential stays in the driver,
 * never in the product). Everything else of the request is forwarded as the client sent it, `Host`
 * and `Origin` included, so the worker itself judges them (DNS-rebinding protection): it sees the
 * Host the client addressed (the proxy's own `127.0.0.1:PORT`, a loopback name the local stack
 * accepts, or the suite's foreign one). To the worker the gateway is then at the proxy's origin:
 * an OAuth token for the agent's MCP URL is got through the proxy too, so its resource is that
 * URL as the suite reaches it. Answers, event streams included, come back unchanged.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CredentialProxy {
  /** `http://127.0.0.1:PORT`: the gateway as reached through the proxy. */
  origin: string;
  /** The agent's MCP URL through the proxy: the URL to give the suite (a loopback URL, as its DNS-rebinding scenario asks). */
  url: string;
  /** The credential added on the MCP path from now on. */
  setCredential(credential: string): void;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded. `host` is kept on purpose. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function forward(target: URL, mcpPath: string, credential: string | undefined, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://proxy.invalid');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  if (url.pathname === mcpPath && credential !== undefined) headers.authorization = `Bearer ${credential}`;
  const upstream = request(
    {
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: url.pathname + url.search,
      method: req.method,
      headers,
    },
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

/** Starts the proxy on a free loopback port in front of the worker of `mcpUrl` (the agent's MCP URL there). */
export async function startCredentialProxy(mcpUrl: string): Promise<CredentialProxy> {
  const target = new URL(mcpUrl);
  let credential: string | undefined;
  const server: Server = createServer((req, res) => forward(target, target.pathname, credential, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${target.pathname}`,
    setCredential: (value) => {
      credential = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
