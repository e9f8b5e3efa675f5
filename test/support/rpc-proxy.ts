import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';

export interface RpcProxy {
  url: string;
  /** While down, every request's connection is dropped without an answer (an RPC outage). */
  setUp(up: boolean): void;
  close(): Promise<void>;
}

/** A loopback JSON-RPC proxy in front of `target` (anvil) that a test can switch off and on. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let up = true;
  const server: Server = createServer((req, res) => {
    if (!up) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
