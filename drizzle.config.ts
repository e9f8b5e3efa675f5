import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes SQL migrations for the shared `gateway` schema into drizzle/gateway.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/storage/schema.ts',
  out: './drizzle/gateway',
  schemaFilter: ['gateway'],
});
