import { type NeonQueryFunction, Pool, neon, neonConfig } from '@neondatabase/serverless';
import { drizzle as drizzleOverHttp, type NeonHttpDatabase } from 'drizzle-orm/neon-http';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import type { Config } from '../config';
import { AppError } from '../errors';
import * as schema from './schema';
import { signalledFetch } from './signalled-fetch';
import type { SqlClient } from './sql-client';

/**
 * The database handle of one request. The pool is opened on first use and must be ended after
 * the response (`end()` via `waitUntil`): a pool kept across requests hangs in Workers.
 */
export interface Database {
  /** WebSocket pool: transactions and multi-statement work (provisioning, idempotent appends). */
  readonly pool: Pool;
  /**
   * One-shot statements over HTTP (Neon's SQL-over-HTTP; locally the bridge's `/sql`): no
   * connection set-up per request, so hot single statements go here.
   */
  readonly sql: SqlClient;
  readonly orm: NeonDatabase<typeof schema>;
  /**
   * The same query builder over `sql`'s path (one HTTP request per statement): for reads on a hot
   * path that should not wait for the pool's connection set-up (an agent reply's reads).
   */
  readonly reads: NeonHttpDatabase<typeof schema>;
  /**
   * The same handle whose HTTP statements (`sql`, `reads`) are cancelled when `signal` aborts:
   * the fetch is aborted, so its answer stops being read, and the statement rejects with
   * `signal.reason` (as does any statement started after it). The pool is shared and not opened
   * after the abort. For work that may be abandoned (a read overlapping the owner check).
   */
  withSignal(signal: AbortSignal): Database;
  end(): Promise<void>;
}

// A statement's signal is handled by our fetch, never by the runtime's (./signalled-fetch.ts).
neonConfig.fetchFunction = signalledFetch;

let proxyConfigured: string | undefined;

function configureDriver(wsProxy: string | undefined): void {
  if (!wsProxy || proxyConfigured === wsProxy) return;
  // Locally the Neon driver reaches embedded Postgres through our loopback WebSocket bridge,
  // the same path Neon's proxy provides in production, without TLS inside the socket.
  neonConfig.wsProxy = (host, port) => `${wsProxy}/v1?address=${host}:${port}`;
  neonConfig.fetchEndpoint = () => `http://${wsProxy}/sql`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  // Startup and cleartext password in one flight, as with Neon's proxy (local Postgres uses
  // password auth over loopback for the same reason).
  neonConfig.pipelineConnect = 'password';
  proxyConfigured = wsProxy;
}

const httpClients = new WeakMap<Config, SqlClient>();
const httpOrms = new WeakMap<Config, NeonHttpDatabase<typeof schema>>();

/** The query builder over HTTP: stateless like `httpClient`, so built once per isolate. */
function httpOrm(config: Config): NeonHttpDatabase<typeof schema> {
  let orm = httpOrms.get(config);
  if (!orm) {
    orm = drizzleOverHttp(neon(config.databaseUrl), { schema });
    httpOrms.set(config, orm);
  }
  return orm;
}

/** One-shot statements over HTTP: stateless (each is its own fetch), so built once per isolate. */
function httpClient(config: Config): SqlClient {
  let client = httpClients.get(config);
  if (!client) {
    client = sqlOver(neon(config.databaseUrl, { fullResults: true }));
    httpClients.set(config, client);
  }
  return client;
}

function sqlOver(http: NeonQueryFunction<false, true>): SqlClient {
  return {
    async query<R = Record<string, unknown>>(text: string, values: unknown[] = []) {
      const result = await http.query(text, values, { fullResults: true });
      return { rows: result.rows as R[], rowCount: result.rowCount };
    },
    queryBounded: (timeoutMs, text, values) => boundedQuery(http, timeoutMs, text, values),
  };
}

/**
 * `text` alone in a read-only transaction with `statement_timeout` local to it: still one HTTP
 * request (Neon's non-interactive transaction). `http` must be the driver's own function (its
 * `query` unpatched), as its transactions take only the driver's own queries.
 */
async function boundedQuery<R>(http: NeonQueryFunction<false, true>, timeoutMs: number, text: string, values: unknown[] = []) {
  const [, result] = await http.transaction(
    (tx) => [tx.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeoutMs)]), tx.query(text, values)],
    { fullResults: true, readOnly: true },
  );
  if (!result) throw new Error('a bounded statement answered no result');
  return { rows: result.rows as R[], rowCount: result.rowCount };
}

/** `statement`'s outcome, or the abort's reason once `signal` has aborted (whatever the driver made of it). */
async function unlessAborted<T>(signal: AbortSignal, statement: () => Promise<T>): Promise<T> {
  signal.throwIfAborted();
  try {
    return await statement();
  } catch (err) {
    signal.throwIfAborted();
    throw err;
  }
}

/**
 * Neon's HTTP query function whose fetches carry `signal` (the driver merges `fetchOptions` into
 * each fetch; drizzle passes none of its own). Built per handle: drizzle's query builder over it
 * is a few objects, built only when `reads` is used.
 */
function abortableHttp<F extends boolean>(config: Config, signal: AbortSignal, fullResults: F): NeonQueryFunction<false, F> {
  const http = neon<false, F>(config.databaseUrl, { fullResults, fetchOptions: { signal } });
  const query = http.query;
  // Same signature, same call; only the rejection after an abort is the abort's reason. drizzle
  // awaits what `query` returns; the driver's own fields are kept beside it.
  http.query = ((text: string, params?: unknown[], opts?: Parameters<typeof query>[2]) => {
    const pending = query(text, params, opts);
    const { execute, queryData } = pending;
    return Object.assign(
      unlessAborted(signal, () => pending),
      { execute, queryData, opts: pending.opts },
    );
  }) as typeof query;
  return http;
}

export function openDatabase(config: Config): Database {
  configureDriver(config.dbWsProxy);
  return handle(config);
}

function handle(config: Config): Database {
  let pool: Pool | undefined;
  let orm: NeonDatabase<typeof schema> | undefined;
  const getPool = (): Pool => {
    pool ??= new Pool({
      connectionString: config.databaseUrl,
      connectionTimeoutMillis: 5_000,
      max: 4,
    });
    return pool;
  };
  const sql = httpClient(config);
  const db: Database = {
    sql,
    get pool() {
      return getPool();
    },
    get orm() {
      orm ??= drizzle(getPool(), { schema });
      return orm;
    },
    get reads() {
      return httpOrm(config);
    },
    withSignal(signal) {
      return abortable(db, config, signal);
    },
    async end() {
      const open = pool;
      pool = undefined;
      orm = undefined;
      if (open) await open.end().catch(() => undefined);
    },
  };
  return db;
}

function abortable(db: Database, config: Config, signal: AbortSignal): Database {
  const transactional = neon(config.databaseUrl, { fullResults: true, fetchOptions: { signal } });
  const sql: SqlClient = {
    query: sqlOver(abortableHttp(config, signal, true)).query,
    queryBounded: (timeoutMs, text, values) => unlessAborted(signal, () => boundedQuery(transactional, timeoutMs, text, values)),
  };
  let reads: NeonHttpDatabase<typeof schema> | undefined;
  return {
    sql,
    get pool() {
      signal.throwIfAborted();
      return db.pool;
    },
    get orm() {
      signal.throwIfAborted();
      return db.orm;
    },
    get reads() {
      reads ??= drizzleOverHttp(abortableHttp(config, signal, false), { schema });
      return reads;
    },
    withSignal: (other) => abortable(db, config, AbortSignal.any([signal, other])),
    end: () => db.end(),
  };
}

/** Postgres SQLSTATE classes that mean "not reachable right now", not "your query is wrong". */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-3])/;

/** True when an error means the database cannot be reached or is not accepting work. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (typeof e === 'object' && e !== null) {
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return true;
      const message = String((e as { message?: unknown }).message ?? '');
      if (/connect|timeout|terminat|websocket|ECONNREFUSED|closed|network/i.test(message)) return true;
      e = (e as { cause?: unknown }).cause;
    } else break;
  }
  return false;
}

/** Maps a database failure to the public error: 503 with Retry-After when Postgres is down. */
export function databaseError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError('dependency_unavailable', 'The database is not available, retry shortly', {
      cause: err,
      headers: { 'Retry-After': '5' },
    });
  }
  return new AppError('internal_error', 'Internal Server Error', { cause: err });
}
