/** What provisioning and raw statements need of Postgres: the Neon driver's pool in the worker, `pg`'s in scripts. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
  /**
   * `text` in a read-only transaction of its own whose statement Postgres cancels after
   * `timeoutMs` (SQLSTATE 57014, `statement_timeout`): for reads whose cost a caller can raise.
   * Absent where a client cannot (then callers fall back to `query`).
   */
  queryBounded?<R = Record<string, unknown>>(
    timeoutMs: number,
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A pool that also hands out a dedicated client (for a transaction). */
export interface SqlPool extends SqlClient {
  connect(): Promise<SqlClient & { release(): void }>;
}
