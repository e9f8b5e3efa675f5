import type { Context } from 'hono';
import type { AgentStore } from '../storage/agent-storage';
import type { AppBindings } from '../types';

/**
 * The agent's storage for a request: one-shot statements, the pool (opened only when a
 * transaction needs it: provisioning, a lazy template upgrade) and the owner check the reads
 * overlap with (docs/architecture.md#a-requests-way-through). Every agent-scoped handler builds its services' store here.
 */
export function agentStore(c: Context<AppBindings>): AgentStore {
  const { db, ownerCheck } = c.var;
  return {
    sql: db.sql,
    get pool() {
      return db.pool;
    },
    ownerCheck,
  };
}
