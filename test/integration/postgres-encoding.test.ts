/**
 * The local Postgres is UTF8 whatever the environment's locale: with no LANG (a bare CI shell),
 * initdb would otherwise choose SQL_ASCII, and lengths, case folding and the search's tsvectors
 * would count bytes (a prompt template of 66 characters listed as 69).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgres, type RunningPostgres } from '../../scripts/lib/postgres';
import { removePostgresData } from '../../scripts/lib/postgres-placement';
import { freePort } from '../../scripts/lib/processes';

const LOCALE_VARIABLES = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE'];
let stateDir = '';
let postgres: RunningPostgres | undefined;

afterAll(async () => {
  await postgres?.stop();
  if (stateDir) {
    await removePostgresData(path.join(stateDir, 'pg'));
    await rm(stateDir, { recursive: true, force: true });
  }
});

describe('the local Postgres', () => {
  it('is created UTF8 when the environment names no locale', async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'postgres-encoding-'));
    await chmod(stateDir, 0o755); // Postgres runs as its own user when we are root
    const saved = Object.fromEntries(LOCALE_VARIABLES.map((name) => [name, process.env[name]]));
    for (const name of LOCALE_VARIABLES) delete process.env[name];
    try {
      postgres = await startPostgres({ dataDir: path.join(stateDir, 'pg'), port: await freePort(), log: () => undefined });
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
    }
    const client = new pg.Client({ connectionString: postgres.adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ encoding: string; length: number }>(
        "select current_setting('server_encoding') as encoding, char_length('warranty desk 🛠') as length",
      );
      expect(rows[0]).toEqual({ encoding: 'UTF8', length: 15 });
    } finally {
      await client.end();
    }
  }, 120_000);
});
