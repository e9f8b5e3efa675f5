import { sql } from 'drizzle-orm';
import { check, integer, pgSchema, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

/**
 * The shared schema `gateway`. Per-agent schemas (contexts, messages) are separate and derived
 * from the agent's identity; nothing here holds an agent's memory.
 */
export const gateway = pgSchema('gateway');

/** NFT collections whose tokens are agents on a deployment, with their kind (`internal`, `expert`, ...). */
export const collections = gateway.table(
  'collections',
  {
    chainId: integer('chain_id').notNull(),
    /** Lower-case 0x-prefixed address. */
    address: text('address').notNull(),
    kind: text('kind').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.address] }),
    check('collections_address_format', sql`${t.address} ~ '^0x[0-9a-f]{40}$'`),
    check('collections_kind_format', sql`${t.kind} ~ '^[a-z][a-z0-9_-]{0,31}$'`),
  ],
);

/**
 * Login nonces already presented to `/auth/jwt/finish` or `/wallet/verify`. The unique key makes
 * single use hold across isolates and locations (KV alone is eventually consistent). Rows older
 * than the longest nonce lifetime are useless (the message has expired) and are pruned.
 */
export const consumedNonces = gateway.table('consumed_nonces', {
  /** `<purpose>:<chainId>:<nonce>`; purpose is `login` or `verify`. */
  key: text('key').primaryKey(),
  consumedAt: timestamp('consumed_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Where each agent's isolated storage lives: the schema derived from its identity, and the
 * version of the per-agent template it has been brought up to. Rows appear on an agent's first
 * write; the rows inside the agent's schema never name the agent.
 */
export const agentStorage = gateway.table(
  'agent_storage',
  {
    schemaName: text('schema_name').primaryKey(),
    chainId: integer('chain_id').notNull(),
    /** Lower-case 0x-prefixed collection address. */
    collection: text('collection').notNull(),
    /** Decimal token id (< 2^256). */
    tokenId: text('token_id').notNull(),
    templateVersion: integer('template_version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    upgradedAt: timestamp('upgraded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('agent_storage_identity').on(t.chainId, t.collection, t.tokenId),
    check('agent_storage_schema_name', sql`${t.schemaName} ~ '^agent_[a-z2-7]{32}$'`),
  ],
);
