import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';

/**
 * The local stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), which the Neon driver's
 * `neon()` function uses for one-shot queries: the request names the database in the
 * `Neon-Connection-String` header and carries `{ query, params }` (or `{ queries: [...] }` for a
 * non-interactive transaction); the answer has `fields` and `rows` as raw text in array mode.
 * Queries run on warm pooled connections, as behind Neon's proxy, so a request pays no
 * connection set-up. Loopback databases only.
 */
export function sqlOverHttp() {
  const pools = new Map<string, pg.Pool>();
  const rawText = { getTypeParser: () => (value: string) => value };

  function poolFor(connectionString: string): pg.Pool {
    let pool = pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 16, types: rawText as never, idleTimeoutMillis: 30_000 });
      pool.on('error', () => undefined); // a backend dying while idle (Postgres restarted)
      pools.set(connectionString, pool);
    }
    return pool;
  }

  interface QueryData {
    query: string;
    params?: unknown[];
  }

  const shape = (result: pg.QueryArrayResult) => ({
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rowAsArray: true,
  });

  async function run(client: pg.Pool | pg.PoolClient, q: QueryData) {
    return shape(await client.query({ text: q.query, values: q.params ?? [], rowMode: 'array' }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const connectionString = String(req.headers['neon-connection-string'] ?? '');
    let host = '';
    try {
      host = new URL(connectionString).hostname;
    } catch {
      /* checked below */
    }
    if (req.method !== 'POST' || !['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
      return send(404, { message: 'POST /sql with a loopback Neon-Connection-String only' });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as QueryData | { queries: QueryData[] };
    const pool = poolFor(connectionString);
    try {
      if ('queries' in body) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const results = [];
          for (const q of body.queries) results.push(await run(client, q));
          await client.query('COMMIT');
          send(200, { results });
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          client.release();
        }
      } else {
        send(200, await run(pool, body));
      }
    } catch (err) {
      const e = err as Record<string, unknown>;
      if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !e.code.startsWith('08') && !e.code.startsWith('57P')) {
        // A Postgres error about the query: the driver rebuilds it from these fields.
        const fields = ['code', 'severity', 'detail', 'hint', 'position', 'schema', 'table', 'column', 'constraint', 'where'];
        send(400, { message: String(e.message), ...Object.fromEntries(fields.filter((f) => e[f] !== undefined).map((f) => [f, e[f]])) });
      } else {
        // Postgres unreachable or gone: the driver reports "Server error (HTTP status 503)".
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end(`database connection failed: ${String(e.message ?? err).split('\n')[0]}`);
      }
    }
  }

  return {
    handle,
    async close() {
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => undefined)));
      pools.clear();
    },
  };
}
