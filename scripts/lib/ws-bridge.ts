import http from 'node:http';
import net from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { sqlOverHttp } from './sql-over-http';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * A browser sends `Origin` on every WebSocket upgrade and every POST; the Neon driver in the worker
 * (and node) never does. Refusing any request that carries one keeps a web page open in the
 * developer's browser from reaching the dev database through the bridge.
 */
function fromBrowser(req: http.IncomingMessage): boolean {
  return req.headers.origin !== undefined;
}

export interface RunningBridge {
  readonly port: number;
  /** What the worker's `DB_WS_PROXY` var is set to. */
  readonly proxy: string;
  /** Drops every open tunnel (used to simulate a database outage). */
  closeAll(): void;
  /** Tunnels open now: one per connection of a worker's Pool (tests check that none is left open). */
  openTunnels(): number;
  stop(): Promise<void>;
}

/**
 * The loopback stand-in for Neon's proxy that the Neon driver talks to locally:
 * `ws://127.0.0.1:<port>/v1?address=<host>:<port>` opens a TCP connection to that address and
 * pipes bytes both ways (the driver's Pool and transactions), and `POST /sql` runs one-shot
 * queries on warm connections (the driver's `neon()` function). Loopback targets only; requests
 * carrying an `Origin` header (browsers) get 403.
 *
 * With `latencyMs` > 0 (`DEV_DB_LATENCY_MS`) the database is that far away: each `POST /sql` is
 * run that many ms after it arrived, a WebSocket upgrade is accepted that much later, and each
 * chunk from Postgres reaches the worker that much after Postgres sent it (FIFO, not cumulative),
 * so every request/answer exchange costs one latency. At 0 nothing is delayed and no timer is set.
 */
export async function startWsBridge(port: number, options: { latencyMs?: number } = {}): Promise<RunningBridge> {
  const latencyMs = options.latencyMs ?? 0;
  /** Runs `fn` one latency from now (at once when there is none). Equal delays keep their order. */
  const later = latencyMs > 0 ? (fn: () => void) => void setTimeout(fn, latencyMs) : (fn: () => void) => fn();
  const sql = sqlOverHttp();
  const server = http.createServer((req, res) => {
    if (fromBrowser(req)) {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'requests from browsers (with an Origin header) are refused' }));
      return;
    }
    later(() => {
      sql.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  const wss = new WebSocketServer({
    server,
    perMessageDeflate: false,
    verifyClient: (info, done) =>
      fromBrowser(info.req) ? done(false, 403, 'requests from browsers are refused') : later(() => done(true)),
  });
  const open = new Set<{ ws: WebSocket; socket: net.Socket }>();
  wss.on('connection', (ws, req) => {
    const address = new URL(req.url ?? '/', 'ws://bridge').searchParams.get('address') ?? '';
    const match = /^(.+):(\d{1,5})$/.exec(address);
    if (!match || !LOOPBACK.has(match[1]!)) {
      ws.close(1008, 'loopback targets only');
      return;
    }
    const socket = net.connect(Number(match[2]), match[1]!.replace(/^\[|\]$/g, ''));
    const tunnel = { ws, socket };
    open.add(tunnel);
    const pending: Buffer[] = [];
    socket.on('connect', () => {
      for (const chunk of pending.splice(0)) socket.write(chunk);
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (socket.connecting) pending.push(chunk);
      else socket.write(chunk);
    });
    socket.on('data', (chunk) => {
      later(() => {
        if (ws.readyState === ws.OPEN) ws.send(chunk);
      });
    });
    const close = () => {
      open.delete(tunnel);
      socket.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
    };
    // Postgres hanging up reaches the worker after the chunks sent before it.
    const closeFromPostgres = () => later(close);
    socket.on('error', closeFromPostgres);
    socket.on('close', closeFromPostgres);
    ws.on('close', close);
    ws.on('error', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const closeAll = () => {
    for (const { ws, socket } of open) {
      socket.destroy();
      ws.terminate();
    }
    open.clear();
    void sql.close();
  };
  return {
    port,
    proxy: `127.0.0.1:${port}`,
    closeAll,
    openTunnels: () => open.size,
    async stop() {
      closeAll();
      await sql.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
