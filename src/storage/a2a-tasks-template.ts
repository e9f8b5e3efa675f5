/**
 * v6: A2A tasks (src/a2a/task-store.ts), one row per task the agent ran for an A2A caller: the
 * caller it belongs to (`key:{id}`, `wallet:0x…` or `oauth:0x…:{clientId}`; a task is read by that caller only), its A2A
 * context id, its state (A2A's task state number) and the task itself as JSON (the caller's message
 * and the reply's text, each bounded by the reply's own bounds; the row by a check). The index
 * serves a caller's tasks newest first and the clean-up by age. A new empty table: the upgrade of
 * an existing agent is instant.
 */
export const A2A_TASKS_STEP: { version: number; statements: (schema: string) => string[] } = {
  version: 6,
  statements: (s) => [
    `CREATE TABLE ${s}.a2a_tasks (
      id text COLLATE "C" PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
      caller text COLLATE "C" NOT NULL CHECK (length(caller) <= 128),
      context_id text COLLATE "C" NOT NULL CHECK (length(context_id) <= 255),
      state smallint NOT NULL,
      task jsonb NOT NULL CHECK (octet_length(task::text) <= 2097152),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX a2a_tasks_caller ON ${s}.a2a_tasks (caller, created_at)`,
  ],
};
