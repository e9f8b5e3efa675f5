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
