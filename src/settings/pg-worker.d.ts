/**
 * The part of `pg` the worker uses (settings/external-db.ts, under nodejs_compat), declared for
 * the worker project (src/tsconfig.json maps `pg` here). @types/pg would pull all of Node's
 * globals into the worker's type check; this keeps them out. test/types/pg-worker.check.ts
 * checks, against @types/pg, that the real module fits this declaration.
 */
declare namespace pg {
  interface ClientConfig {
    host?: string;
    port?: number;
    database?: string;
    user?: string;
    password?: string;
    ssl?: boolean | { rejectUnauthorized?: boolean };
    connectionTimeoutMillis?: number;
    query_timeout?: number;
  }
  interface QueryResult<R> {
    rows: R[];
  }
  class Client {
    constructor(config?: ClientConfig);
    on(event: 'error', listener: (err: Error) => void): this;
    connect(): Promise<unknown>;
    query<R>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
    end(): Promise<void>;
  }
}

declare const pg: { Client: typeof pg.Client };
export default pg;
