/**
 * The order of a reply's opening: the template is read while the owner check is on
 * its way, but rendered only after it passed, so a caller the owner check refuses has nothing of
 * theirs expanded. Over a query builder whose database answers only the template's read (the
 * other reads fail, as they may while the check is pending), with variables that count every
 * look at them: a refused caller gets `not_owner` and not one variable was read.
 */
import { drizzle } from 'drizzle-orm/pg-proxy';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/identity/agent';
import { AppError } from '../../src/errors';
import { prepareReply, type ReplyDeps } from '../../src/replies/reply.service';
import type { Database } from '../../src/storage/db';
import { ALL_RIGHTS } from '../../src/tools/rights';
import * as schema from '../../src/storage/schema';
import type { SqlClient, SqlPool } from '../../src/storage/sql-client';

const agent: Agent = {
  chainId: 31337,
  collection: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  tokenId: 7n,
  kind: 'internal',
  owner: '0x70997970C51812dc3A010C7d01b50e720d7c79C8',
};

/** Variables whose every read is counted (Object.hasOwn, `in`, indexing, listing). */
function countedVariables(values: Record<string, string>) {
  const seen = { reads: 0 };
  const count = <T>(value: T): T => {
    seen.reads++;
    return value;
  };
  const variables = new Proxy(values, {
    get: (t, p, r) => count(Reflect.get(t, p, r)),
    has: (t, p) => count(Reflect.has(t, p)),
    getOwnPropertyDescriptor: (t, p) => count(Reflect.getOwnPropertyDescriptor(t, p)),
    ownKeys: (t) => count(Reflect.ownKeys(t)),
  });
  return { variables, seen };
}

function depsWith(ownerCheck: Promise<void>, template: string) {
  const queries: string[] = [];
  const nothing = () => Promise.reject(new Error('no database in this test'));
  const reads = drizzle(
    async (text) => {
      queries.push(text);
      if (!text.includes('"prompt_templates"')) return nothing();
      // The columns of prompt_templates in order: chain_id, collection, token_id, key, template, description, updated_at.
      return { rows: [[agent.chainId, agent.collection.toLowerCase(), '7', 'persona', template, null, new Date().toISOString()]] };
    },
    { schema },
  );
  const sql: SqlClient = { query: nothing };
  const pool = { query: nothing, connect: nothing } as SqlPool;
  const db = { reads, sql, pool } as unknown as Database;
  const deps: ReplyDeps = {
    store: { sql, pool, ownerCheck },
    db,
    ring: nothing,
    mcp: { db, ring: nothing, timeoutMs: 1_000, outbound: { loopbackTargets: [] } } as unknown as ReplyDeps['mcp'],
    limits: { maxTokensPerRequest: 1_000, maxIterations: 1, llmTimeoutMs: 1_000, mcpTimeoutMs: 1_000 },
  };
  return { deps, queries };
}

describe('a reply for a caller the owner check refuses', () => {
  it('reads the template meanwhile but renders nothing: not one variable is looked at', async () => {
    const refused = Promise.reject(new AppError('not_owner', 'not the owner'));
    refused.catch(() => undefined); // awaited by prepareReply, as the gate's promise is
    const { deps, queries } = depsWith(refused, `You are {{name}}. ${'{{big}}'.repeat(13_000)}`);
    const { variables, seen } = countedVariables({ name: 'Ada', big: 'x'.repeat(65_536) });
    const input = {
      contextKey: 'chat',
      message: 'hi',
      role: 'user' as const,
      promptTemplateKey: 'persona',
      variables,
      tools: false,
      memoryTools: true,
      rights: () => ALL_RIGHTS,
      allowedTools: () => null,
      actor: () => ({ wallet: agent.owner }),
      caller: () => ({ credential: `wallet:${agent.owner}` as const, tokensPerDay: null }),
    };
    const err = await prepareReply(deps, agent, input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('not_owner');
    expect(queries.some((q) => q.includes('"prompt_templates"'))).toBe(true);
    expect(seen.reads).toBe(0);
  });
});
