/** What provisioning and raw statements need of Postgres: the Neon driver's pool in the worker, `pg`'s in scripts. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A pool that also hands out a dedicated client (for a transaction). */
export interface SqlPool extends SqlClient {
  connect(): Promise<SqlClient & { release(): void }>;
}
