import { createServer, type Server } from 'node:http';

export interface RpcProxy {
  url: string;
  /** While down, every request's connection is dropped without an answer (an RPC outage). */
  setUp(up: boolean): void;
  close(): Promise<void>;
}

/**
 * A loopback JSON-RPC proxy in front of `target` (anvil). With `latencyMs` > 0 every request is
 * forwarded that many ms after it arrived, so each exchange with the chain costs one latency, as
 * with an RPC provider a network away (`DEV_RPC_LATENCY_MS`); at 0 it forwards at once, without
 * timers. Tests also switch it off and on (`setUp`) to play an RPC outage.
 */
export async function startRpcProxy(target: string, options: { latencyMs?: number; port?: number } = {}): Promise<RpcProxy> {
  const latencyMs = options.latencyMs ?? 0;
  let up = true;
  const server: Server = createServer((req, res) => {
    if (!up) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const forward = () =>
        fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
          .then(async (upstream) => {
            res.writeHead(upstream.status, { 'content-type': 'application/json' });
            res.end(Buffer.from(await upstream.arrayBuffer()));
          })
          .catch(() => req.socket.destroy());
      if (latencyMs > 0) setTimeout(() => void forward(), latencyMs);
      else void forward();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('rpc proxy: no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    setUp: (value) => {
      up = value;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
