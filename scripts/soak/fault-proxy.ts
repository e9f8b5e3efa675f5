/**
 * A loopback HTTP proxy that can play an outage: in front of the chain RPC (anvil) and of the
 * example tool server during the soak. `pass` forwards every request (method, path, headers and
 * body; the answer likewise), `refuse` drops each connection without an answer (a provider that
 * is down), `error500` answers 500 at once (a provider that fails).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export type ProxyMode = 'pass' | 'refuse' | 'error500';

export interface FaultProxy {
  /** `http://127.0.0.1:PORT` + the target's path. */
  url: string;
  setMode(mode: ProxyMode): void;
  /** Requests answered with a fault so far. */
  faulted(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Starts the proxy in front of `target` (a URL; its path is kept in `url`). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  let mode: ProxyMode = 'pass';
  let faulted = 0;
  const server: Server = createServer((req, res) => {
    if (mode === 'refuse') {
      faulted++;
      req.socket.destroy();
      return;
    }
    if (mode === 'error500') {
      faulted++;
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('soak: injected fault');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      fetch(new URL(req.url ?? '/', targetUrl.origin), {
        method,
        headers: forwardable(req.headers),
        body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
      })
        .then(async (upstream) => {
          const headers: Record<string, string> = {};
          upstream.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') headers[name] = value;
          });
          const body = Buffer.from(await upstream.arrayBuffer());
          res.writeHead(upstream.status, headers);
          res.end(body);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('fault proxy: no address');
  return {
    url: `http://127.0.0.1:${address.port}${targetUrl.pathname === '/' ? '' : targetUrl.pathname}`,
    setMode: (value) => {
      mode = value;
    },
    faulted: () => faulted,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
