import pg from 'pg';
import { AppError } from '../errors';

export interface ExternalDatabase {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  ssl: 'require' | 'disable';
}

const CONNECT_TIMEOUT_MS = 5_000;
/** Longest wait for the connection to close; a failure is padded after the close, not before. */
const END_TIMEOUT_MS = 1_000;
/** Tables offered at most (the second step accepts as many). */
export const MAX_TABLES = 1_000;
/** `schema.table`: two identifiers of at most 63 bytes and a dot; longer names are not offered. */
export const MAX_TABLE_NAME_CHARS = 127;
/** Bytes read from the server at most, whatever it sends: a hostile server cannot fill our memory. */
const MAX_BYTES_READ = 1024 * 1024;

/**
 * Every failure before the login succeeds (refused, reset, timeout, DNS, TLS, not Postgres, wrong
 * user or password) is answered the same way, and no sooner than `CONNECT_TIMEOUT_MS` after the
 * attempt started: the step cannot tell an open port from a closed one, nor a Postgres from
 * another service, so it is no port scanner.
 */
const CONNECT_FAILED = 'The database could not be reached, or refused the login: check host, port, TLS, user name and password';

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

interface PgInternals {
  connection?: {
    stream?: { on(event: 'data', listener: (chunk: { length: number }) => void): void; destroy?(): void };
    on(event: string, listener: () => void): void;
  };
}

/** Counts the bytes the server sends and cuts the connection past `MAX_BYTES_READ`. */
function capBytesRead(client: pg.Client): () => boolean {
  let read = 0;
  let exceeded = false;
  const connection = (client as unknown as PgInternals).connection;
  const watch = () => {
    const stream = connection?.stream;
    stream?.on('data', (chunk) => {
      read += chunk.length;
      if (read > MAX_BYTES_READ && !exceeded) {
        exceeded = true;
        stream.destroy?.();
      }
    });
  };
  watch();
  connection?.on('sslconnect', watch); // Node replaces the stream with a TLS one; workerd upgrades in place
  return () => exceeded;
}

/**
 * Connects to an external Postgres over TCP (from the worker, `pg` under nodejs_compat) and lists
 * the tables and views the user can read, as `schema.table`: at most `MAX_TABLES`, names of at
 * most `MAX_TABLE_NAME_CHARS`, at most 1 MiB read. Failures: a database that does not exist
 * (reported by the server after the login) 400 `database_not_found`; anything else 424
 * `database_unreachable`, one message for every cause.
 */
export async function listVisibleTables(target: ExternalDatabase): Promise<string[]> {
  const started = Date.now();
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password,
    ssl: target.ssl === 'require' ? { rejectUnauthorized: true } : false,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined); // a late socket error must not crash the isolate
  const tooMuch = capBytesRead(client);
  let ended: Promise<void> | undefined;
  const end = () => (ended ??= endWithin(client, END_TIMEOUT_MS));
  try {
    await client.connect();
    const { rows } = await client.query<{ name: unknown }>(
      `select table_schema || '.' || table_name as name from information_schema.tables
       where table_schema not in ('pg_catalog', 'information_schema') and table_schema not like 'pg\\_%'
         and length(table_schema) + length(table_name) < $2
         and has_table_privilege(quote_ident(table_schema) || '.' || quote_ident(table_name), 'SELECT')
       order by 1 limit $1`,
      [MAX_TABLES, MAX_TABLE_NAME_CHARS],
    );
    if (tooMuch()) throw new Error('reply too large');
    // The server may not be a well-behaved Postgres: check what came back, not what we asked for.
    const names = rows
      .map((r) => r.name)
      .filter((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= MAX_TABLE_NAME_CHARS);
    return [...new Set(names)].slice(0, MAX_TABLES);
  } catch (err) {
    if (sqlState(err) === '3D000') throw new AppError('database_not_found', 'The database does not exist on that server');
    // Close first, then pad: how long the close takes (a live socket vs none) must not show.
    await end();
    const wait = started + CONNECT_TIMEOUT_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    throw new AppError('database_unreachable', CONNECT_FAILED, { cause: err });
  } finally {
    await end();
  }
}

/** Ends the client, giving up waiting after `ms` (the socket is dropped with the isolate's request). */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([client.end().catch(() => undefined), timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
