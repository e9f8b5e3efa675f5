/**
 * `npm run bench:search -- --worst-only` (or after the rest, `--worst-runs N`, 0 skips it): the most
 * one search may cost the database. The unindexed tail at its bounds (src/memory/search.service.ts:
 * SEARCH_TAIL_BYTES in one message; SEARCH_TAIL_MESSAGES short ones), one byte past them, and
 * queries of 16 terms: words full text finds, and misspellings it does not (trigram similarity
 * over every tail message). Searches run as the worker runs them: each
 * statement in a read-only transaction with the statement timeout set (the `pg` pool standing in
 * for Neon's HTTP transaction). With `--before REF`, the search as it was at REF on the same data.
 */
import type pg from 'pg';
import { parseQuery } from '../../../src/memory/query';
import {
  SEARCH_STATEMENT_TIMEOUT_MS,
  SEARCH_TAIL_BYTES,
  SEARCH_TAIL_MESSAGES,
  type searchMemory,
} from '../../../src/memory/search.service';
import type { AgentSchema } from '../../../src/storage/agent-storage';
import type { SqlClient } from '../../../src/storage/sql-client';
import { markdownTable, median, ms, now, percentile } from '../lib';
import { corpusMessages } from './corpus';

type Search = typeof searchMemory;
type AgentOf = Parameters<Search>[1];

export interface WorstCaseSetup {
  pool: pg.Pool;
  newAgent(): Promise<{ agent: AgentOf; schema: AgentSchema }>;
  /** Appends `count` corpus messages (the gateway's append SQL) and indexes them. */
  seed(schema: AgentSchema, count: number): Promise<void>;
  runs: number;
  current: Search;
  before?: { ref: string; search: Search };
}

/** The worker's bounded statements, over a `pg` pool: BEGIN READ ONLY, the timeout, the statement. */
export function boundedPg(pool: pg.Pool): SqlClient {
  return {
    async query<R>(text: string, values?: unknown[]) {
      const result = await pool.query(text, values);
      return { rows: result.rows as R[], rowCount: result.rowCount };
    },
    async queryBounded<R>(timeoutMs: number, text: string, values?: unknown[]) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN READ ONLY');
        await client.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeoutMs)]);
        const result = await client.query(text, values);
        await client.query('COMMIT');
        return { rows: result.rows as R[], rowCount: result.rowCount };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** `count` unindexed messages of `bytes` each, made of corpus text (as appends leave them before the indexer). */
async function addTail(pool: pg.Pool, schema: AgentSchema, count: number, bytes: number): Promise<void> {
  const words = corpusMessages(7, 0, 400).join(' ');
  const text = words.repeat(Math.ceil(bytes / words.length) + 1).slice(0, bytes);
  for (let i = 0; i < count; i += 500) {
    const n = Math.min(500, count - i);
    await pool.query(
      `INSERT INTO ${schema.quoted}.messages (context_key, role, message)
       SELECT 'customer:0/notes', 'user', $1 FROM generate_series(1, $2)`,
      [text, n],
    );
  }
  await pool.query(`ANALYZE ${schema.quoted}.messages`);
}

/** Sixteen words of the corpus (full text finds each), and sixteen misspellings (it finds none). */
function queries(): { label: string; query: string }[] {
  const counts = new Map<string, number>();
  for (const m of corpusMessages(7, 0, 2000))
    for (const w of m.toLowerCase().match(/\p{L}{5,}/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  const common = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const words = common.slice(0, 16);
  const misspelt = common.slice(0, 16).map((w) => `${w.slice(0, 2)}${w[2]}${w.slice(2)}q`);
  return [
    { label: '16 words full text finds', query: words.join(' or ') },
    { label: '16 misspellings (trigram similarity)', query: misspelt.join(' or ') },
  ];
}

interface Outcome {
  times: number[];
  statuses: Set<string>;
}

async function run(setup: WorstCaseSetup, search: Search, agent: AgentOf, query: string, out: Outcome): Promise<void> {
  const deps = { sql: boundedPg(setup.pool), pool: setup.pool as never, ownerCheck: Promise.resolve() };
  const started = now();
  try {
    await search(deps, agent, { query, parsed: parseQuery(query)!, limit: 20 });
    out.statuses.add('200');
  } catch (err) {
    out.statuses.add((err as { code?: string }).code === 'search_busy' ? '503 search_busy' : `error ${(err as Error).message}`);
  }
  out.times.push(now() - started);
}

/** The worst case's markdown section (a table of p50, p95 and max per tail and query). */
export async function worstCase(setup: WorstCaseSetup): Promise<string> {
  const kib = SEARCH_TAIL_BYTES / 1024;
  const each = Math.floor(SEARCH_TAIL_BYTES / SEARCH_TAIL_MESSAGES);
  const tails = [
    { label: `1 message of ${kib} KiB (the byte bound)`, count: 1, bytes: SEARCH_TAIL_BYTES },
    {
      label: `${SEARCH_TAIL_MESSAGES.toLocaleString('en')} messages of ${each} bytes (the message bound, ${kib} KiB)`,
      count: SEARCH_TAIL_MESSAGES,
      bytes: each,
    },
    { label: `2 messages of ${kib / 2} KiB + 1 byte (past the byte bound)`, count: 2, bytes: SEARCH_TAIL_BYTES / 2 + 1 },
  ];
  const rows: string[][] = [];
  for (const tail of tails) {
    const { agent, schema } = await setup.newAgent();
    await setup.seed(schema, 1000);
    await addTail(setup.pool, schema, tail.count, tail.bytes);
    for (const q of queries()) {
      const searches = [
        { name: 'now', search: setup.current },
        ...(setup.before ? [{ name: `at ${setup.before.ref}`, search: setup.before.search }] : []),
      ];
      const outcomes = searches.map(() => ({ times: [] as number[], statuses: new Set<string>() }));
      for (let round = 0; round < 1 + setup.runs; round++) {
        for (let i = 0; i < searches.length; i++) {
          const s = (i + round) % searches.length;
          const out = round === 0 ? { times: [], statuses: new Set<string>() } : outcomes[s]!;
          await run(setup, searches[s]!.search, agent, q.query, out);
        }
      }
      for (const [i, s] of searches.entries()) {
        const sorted = outcomes[i]!.times.sort((a, b) => a - b);
        rows.push([
          tail.label,
          q.label,
          s.name,
          [...outcomes[i]!.statuses].join(', '),
          ms(median(sorted)),
          ms(percentile(sorted, 95)),
          ms(sorted.at(-1)!),
        ]);
      }
    }
  }
  const how =
    'Each agent holds 1,000 indexed corpus messages and the unindexed tail named; every search is `searchMemory` whole ' +
    `(both statements), each statement in a read-only transaction with \`statement_timeout\` ${SEARCH_STATEMENT_TIMEOUT_MS} ms ` +
    `as the worker sends it${setup.before ? ` (the search at \`${setup.before.ref}\` sets none)` : ''}. ` +
    `${setup.runs} rounds after one warm-up, taking turns.`;
  return `${how}

${markdownTable(['Unindexed tail', 'Query', 'Search', 'Answer', 'p50', 'p95', 'max'], rows, ['left', 'left', 'left', 'left', 'right', 'right', 'right'])}`;
}
