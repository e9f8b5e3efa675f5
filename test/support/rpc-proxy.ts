import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';

/** The proxy lives with the dev stack (DEV_RPC_LATENCY_MS); tests use it to play an RPC outage. */
export { startRpcProxy, type RpcProxy } from '../../scripts/lib/rpc-proxy';

/** A loopback port that accepts connections and never answers: an RPC that hangs. */
export async function startBlackHole(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('black hole: no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback JSON-RPC proxy in front of `target` that counts the methods it forwards. */
export async function countingProxy(target: string): Promise<{ url: string; counts: Map<string, number>; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const calls = [JSON.parse(body) as { method: string } | { method: string }[]].flat();
      for (const { method } of calls) counts.set(method, (counts.get(method) ?? 0) + 1);
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(await answer.text());
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('counting proxy: no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    counts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
