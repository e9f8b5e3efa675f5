import http from 'node:http';
import net from 'node:net';

/** One `POST /sql` as the worker received it: the answer's size and how much of it was sent. */
export interface SqlExchange {
  readonly query: string;
  readonly answerBytes: number;
  sentBytes: number;
  /** The answer was sent whole, or the worker hung up first. */
  ended: Promise<'sent' | 'hung up'>;
}

export interface SlowSql {
  /** What the worker's `DB_WS_PROXY` is set to. */
  readonly proxy: string;
  readonly exchanges: SqlExchange[];
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the harness' database bridge (`bridge` is its `DB_WS_PROXY`):
 * WebSocket tunnels (the pool) pass through untouched; each `POST /sql` answer is fetched from
 * the bridge whole and then sent to the worker `chunkBytes` every `everyMs`, as a large answer
 * arrives over a real network, counting what was sent and stopping when the worker hangs up. A
 * statement `holdMs` picks is run that much later (to keep a request's `waitUntil` work pending).
 */
export async function startSlowSql(
  bridge: string,
  options: {
    chunkBytes: number;
    everyMs: number /** Ms to hold a statement before it runs (0: none). */;
    holdMs?: (query: string) => number;
    /** True: the statement's connection is dropped unanswered, as when the database is down. */
    drop?: (query: string) => boolean;
  },
): Promise<SlowSql> {
  const exchanges: SqlExchange[] = [];
  const [bridgeHost, bridgePort] = bridge.split(':') as [string, string];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name.startsWith('neon-') || name === 'content-type'),
      );
      if (options.drop?.(body.toString('utf8'))) {
        req.socket.destroy();
        return;
      }
      const hold = options.holdMs?.(body.toString('utf8')) ?? 0;
      void new Promise((resolve) => setTimeout(resolve, hold))
        .then(() => fetch(`http://${bridge}${req.url ?? '/sql'}`, { method: 'POST', headers: headers as Record<string, string>, body }))
        .then(async (upstream) => {
          const answer = Buffer.from(await upstream.arrayBuffer());
          const exchange = { query: body.toString('utf8'), answerBytes: answer.length, sentBytes: 0 } as SqlExchange;
          exchange.ended = new Promise((resolve) => {
            res.on('close', () => resolve(exchange.sentBytes === answer.length && res.writableFinished ? 'sent' : 'hung up'));
          });
          exchanges.push(exchange);
          res.writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'application/json',
            'content-length': String(answer.length),
          });
          const sendNext = () => {
            if (res.destroyed) return;
            const chunk = answer.subarray(exchange.sentBytes, exchange.sentBytes + options.chunkBytes);
            res.write(chunk, (err) => {
              if (err) return;
              exchange.sentBytes += chunk.length;
              if (exchange.sentBytes >= answer.length) res.end();
              else setTimeout(sendNext, options.everyMs);
            });
          };
          sendNext();
        })
        .catch(() => req.socket.destroy());
    });
  });
  // The pool's WebSocket: the upgrade request and every byte after it go to the bridge as they are.
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(Number(bridgePort), bridgeHost, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', close);
    socket.on('error', close);
    upstream.on('close', close);
    socket.on('close', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('slow sql: no address');
  return {
    proxy: `127.0.0.1:${address.port}`,
    exchanges,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
