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
const MAX_TABLES = 1_000;

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Connects to an external Postgres over TCP (from the worker, `pg` under nodejs_compat) and lists
 * the tables and views the user can read, as `schema.table`. Maps failures to clear errors:
 * bad credentials 400, missing database 400, unreachable or silent host 424.
 */
export async function listVisibleTables(target: ExternalDatabase): Promise<string[]> {
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
  try {
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.tables
       where table_schema not in ('pg_catalog', 'information_schema') and table_schema not like 'pg\\_%'
         and has_table_privilege(quote_ident(table_schema) || '.' || quote_ident(table_name), 'SELECT')
       order by 1 limit $1`,
      [MAX_TABLES],
    );
    return rows.map((r) => r.name);
  } catch (err) {
    throw externalDatabaseError(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function externalDatabaseError(err: unknown): AppError {
  const state = sqlState(err);
  if (state === '28P01' || state === '28000') {
    return new AppError('database_auth_failed', 'The database refused the user name or password');
  }
  if (state === '3D000') return new AppError('database_not_found', 'The database does not exist on that server');
  if (state?.startsWith('08') || state === undefined || /ECONN|ENOTFOUND|EAI_AGAIN|timeout|terminated|closed|connect/i.test(String((err as Error)?.message))) {
    return new AppError('database_unreachable', 'The database server could not be reached', { cause: err });
  }
  return new AppError('database_unreachable', 'The database server did not accept the connection', { cause: err, details: { sqlState: state } });
}
