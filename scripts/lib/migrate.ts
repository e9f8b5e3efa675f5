import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Applies the shared `gateway` schema's migrations from drizzle/gateway (idempotent). */
export async function migrateGateway(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await migrate(drizzle(pool), {
      migrationsFolder: path.join(REPO_ROOT, 'drizzle/gateway'),
      migrationsSchema: 'drizzle',
      migrationsTable: '__gateway_migrations',
    });
  } finally {
    await pool.end();
  }
}
