/**
 * The per-agent schema template, as ordered migrations. Each agent schema records the version it
 * has reached (gateway.agent_storage.template_version); requests upgrade an outdated schema lazily
 * and `npm run agents:upgrade` walks them all. Steps are SQL parameterised by the schema's quoted
 * name, so they live here rather than in drizzle/ (whose migrations target fixed schemas).
 *
 * Keep the template small: every relation costs catalog rows times the number of agents.
 * v1: contexts (key sorted in byte order, pg_trgm index for substring search), messages (ordered
 *     by an identity id within a context), idempotency records, and a one-row key counter so an
 *     unfiltered list answers totalElements without counting 10^6 rows.
 * v2: an index on idempotency(created_at), so the scheduled clean-up's
 *     `DELETE … WHERE created_at < now() - 48 h` (src/maintenance/cleanup.ts) finds the old records
 *     by an index scan instead of reading every record of every schema it visits.
 * v3: memory search (docs/memory.md): two `tsvector` columns on messages, English stemming
 *     (`search_en`) and exact words in any language (`search_simple`; also keeps English stop
 *     words), kept apart so neither can cross the 1 MB tsvector limit with a 256 KiB message and a
 *     query of one configuration never matches the other's lexemes. They are filled after the
 *     append, not by it (src/storage/search-index.ts: `waitUntil` after an append or a search, the Cron
 *     clean-up as a catch-up): computing them and indexing the trigrams at append cut hydration
 *     to x0.12 of its throughput (BENCHMARKS.md). One partial GIN index over the filled rows serves
 *     both tsvectors and the message's trigrams (pg_trgm, for identifiers and misspellings); a
 *     partial btree finds the rows not yet filled (the tail search reads directly). Nullable
 *     columns without a default and indexes over a table whose rows are all unfilled: the upgrade
 *     of an existing agent rewrites nothing and holds its lock for one scan of the table.
 * v4: summaries: one row per context, the latest summary of the messages a reply left
 *     out, with the id range it covers (`from_id`..`to_id`, both inclusive); the messages stay as
 *     they are. Written after a reply (src/replies/summarise.ts) by a conditional upsert that keeps
 *     the newest range. A new empty table: the upgrade of an existing agent is one CREATE.
 * v5: usage: token counters per UTC day, context and credential (`wallet:0x…` or
 *     `key:{id}`), upserted by each reply (src/usage/). The primary key starts with the day, so a
 *     range of days and the day's sum a reply's limit check reads are one index range. A new
 *     empty table: the upgrade of an existing agent is instant.
 * v6: A2A tasks (./a2a-tasks-template.ts).
 */
import { A2A_TASKS_STEP } from './a2a-tasks-template';

export interface TemplateStep {
  version: number;
  statements: (schema: string) => string[];
}

export const AGENT_TEMPLATE: readonly TemplateStep[] = [
  {
    version: 1,
    statements: (s) => [
      `CREATE TABLE ${s}.contexts (
        key text COLLATE "C" PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX contexts_key_trgm ON ${s}.contexts USING gin (key public.gin_trgm_ops)`,
      `CREATE TABLE ${s}.messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        context_key text COLLATE "C" NOT NULL REFERENCES ${s}.contexts (key),
        role text NOT NULL CHECK (role IN ('user', 'system', 'assistant')),
        message text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX messages_context_id ON ${s}.messages (context_key, id)`,
      `CREATE TABLE ${s}.idempotency (
        key text PRIMARY KEY,
        request_hash text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ${s}.key_count (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        visible bigint NOT NULL DEFAULT 0
      )`,
      `INSERT INTO ${s}.key_count DEFAULT VALUES`,
    ],
  },
  {
    version: 2,
    statements: (s) => [`CREATE INDEX idempotency_created_at ON ${s}.idempotency (created_at)`],
  },
  {
    version: 3,
    statements: (s) => [
      `ALTER TABLE ${s}.messages ADD COLUMN search_en tsvector, ADD COLUMN search_simple tsvector`,
      `CREATE INDEX messages_search ON ${s}.messages USING gin (search_en, search_simple, message public.gin_trgm_ops)
        WHERE search_en IS NOT NULL`,
      `CREATE INDEX messages_unindexed ON ${s}.messages (id) WHERE search_en IS NULL`,
    ],
  },
  {
    version: 4,
    statements: (s) => [
      `CREATE TABLE ${s}.summaries (
        context_key text COLLATE "C" PRIMARY KEY REFERENCES ${s}.contexts (key),
        summary text NOT NULL,
        from_id bigint NOT NULL,
        to_id bigint NOT NULL CHECK (to_id >= from_id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    version: 5,
    statements: (s) => [
      `CREATE TABLE ${s}.usage (
        day date NOT NULL,
        context_key text COLLATE "C" NOT NULL,
        credential text COLLATE "C" NOT NULL,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        cached_input_tokens bigint NOT NULL DEFAULT 0,
        model_calls bigint NOT NULL DEFAULT 0,
        tool_calls bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (day, context_key, credential)
      )`,
    ],
  },
  A2A_TASKS_STEP,
];

export const TEMPLATE_VERSION = AGENT_TEMPLATE[AGENT_TEMPLATE.length - 1]!.version;
