/**
 * Applies the shared `gateway` schema's migrations (drizzle/gateway) to DATABASE_URL.
 *   DATABASE_URL=postgresql://... npm run db:migrate
 */
import { migrateGateway } from './lib/migrate';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('set DATABASE_URL to the Postgres (Neon) connection string');
  process.exit(1);
}
migrateGateway(url)
  .then(() => console.log('gateway schema is up to date'))
  .catch((err: unknown) => {
    console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
