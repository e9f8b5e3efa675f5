import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

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

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => new Uint8Array(value),
});

/** The agent a gateway row belongs to: chain, lower-case collection, decimal token id. */
const agentColumns = () => ({
  chainId: integer('chain_id').notNull(),
  collection: text('collection').notNull(),
  tokenId: text('token_id').notNull(),
});

/**
 * Secrets (API keys, tool-server credentials, database passwords), envelope-encrypted (src/vault):
 * the data key wrapped by the KEK of `kek_version`; additional data binds both to the entry id,
 * the agent, `owner` (the record using the secret) and `owner_wallet` (the wallet that entered
 * it). A secret is only ever used for requests of that wallet (never for a later owner). Never returned by any
 * endpoint.
 */
export const vaultEntries = gateway.table(
  'vault_entries',
  {
    id: uuid('id').primaryKey(),
    ...agentColumns(),
    /** The record using this secret, e.g. `llm_settings` or `mcp_connection:<id>`. */
    owner: text('owner').notNull(),
    /**
     * Lower-case address of the wallet that entered the secret (the JWT `sub` the owner gate
     * proved to own the agent then). Null only for entries stored before owners were recorded:
     * those are never opened for a request, their owner must enter them again.
     */
    ownerWallet: text('owner_wallet'),
    kekVersion: integer('kek_version').notNull(),
    wrappedKey: bytea('wrapped_key').notNull(),
    ciphertext: bytea('ciphertext').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('vault_entries_agent').on(t.chainId, t.collection, t.tokenId),
    index('vault_entries_kek_version').on(t.kekVersion),
    check('vault_entries_owner_wallet', sql`${t.ownerWallet} ~ '^0x[0-9a-f]{40}$'`),
  ],
);

/** An agent's LLM settings; the API key lives in the vault. */
export const llmSettings = gateway.table(
  'llm_settings',
  {
    ...agentColumns(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    temperature: doublePrecision('temperature').notNull(),
    maxTokens: integer('max_tokens').notNull(),
    /** openai-compatible (and optionally openai/anthropic): the API's base URL, checked by the outbound policy. */
    baseUrl: text('base_url'),
    apiKeyEntry: uuid('api_key_entry').references(() => vaultEntries.id, { onDelete: 'set null' }),
    /**
     * The provider and base URL the owner last entered the API key (or `null` for none) for: a
     * reply runs only while `provider` and `base_url` still equal them, so a key never
     * follows a later owner's `base_url`. `api_key_provider` null: a key was dropped by a change of
     * either (or stored before keys were bound) and none has been entered since.
     */
    apiKeyProvider: text('api_key_provider'),
    apiKeyBaseUrl: text('api_key_base_url'),
    /**
     * Lower-case address of the wallet that entered the key, or chose none, for that provider and
     * base URL: a reply runs only for that wallet, so settings (even keyless ones) a later owner
     * pointed at their own server never carry an earlier owner's memory there after a transfer back.
     */
    apiKeyWallet: text('api_key_wallet'),
    /**
     * The agent's daily token limit: a reply starting when the UTC day's input + output
     * tokens of all its credentials reached it is refused (429 `usage_limit_reached`). Null: none.
     */
    tokensPerDay: bigint('tokens_per_day', { mode: 'number' }),
    /** Whether replies write and send summaries of the messages they leave out. */
    summaries: boolean('summaries').notNull().default(true),
    /**
     * What the owner lets others do (read only for a caller who is not the owner): the owner's
     * delegates in delegate.xyz (`none`, `use`, `admin`) and the token's ERC-4907 renter (`none`, `use`).
     */
    accessDelegates: text('access_delegates').notNull().default('use'),
    accessRenters: text('access_renters').notNull().default('use'),
    /**
     * Lower-case address of the wallet that set `access`: the choice holds only while that wallet
     * owns the agent (a later owner starts from the defaults, `use` and `use`). Null: never set.
     */
    accessWallet: text('access_wallet'),
    /**
     * The price of one paid reply (POST …/paid/ask) in USDC units (6 decimals), paid to whoever owns
     * the agent when it is asked; null: no paid replies. Not bound to a wallet: it stays through a transfer.
     */
    priceAskUnits: integer('price_ask_units'),
    /** Whether a paid reply may use the agent's memory tools. */
    priceMemoryTools: boolean('price_memory_tools').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.collection, t.tokenId] }),
    check('llm_settings_tokens_per_day', sql`${t.tokensPerDay} > 0`),
    check('llm_settings_access_delegates', sql`${t.accessDelegates} in ('none', 'use', 'admin')`),
    check('llm_settings_access_renters', sql`${t.accessRenters} in ('none', 'use')`),
    check('llm_settings_price_ask_units', sql`${t.priceAskUnits} between 1000 and 100000000`),
  ],
);

/**
 * Replies in progress: one lease per context, so two replies never run on one
 * context at once. `context_ref` is sha256 of `chainId:collection:tokenId:contextKey` (no agent
 * memory in the shared schema); a lease past `expires_at` (a crashed reply) is taken over.
 */
export const replyLeases = gateway.table('reply_leases', {
  contextRef: text('context_ref').primaryKey(),
  leaseId: uuid('lease_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** An agent's prompt templates, addressed by key. */
export const promptTemplates = gateway.table(
  'prompt_templates',
  {
    ...agentColumns(),
    key: text('key').notNull(),
    template: text('template').notNull(),
    description: text('description'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.collection, t.tokenId, t.key] })],
);

/**
 * The profile an owner sets for the agent's public ERC-8004 registration file: one row
 * per agent. `set_by_wallet` (lower case) is the owner who set it: the file says `active` only while
 * that wallet still owns the agent, so a seller's profile is not presented as the buyer's.
 */
export const agentProfiles = gateway.table(
  'agent_profiles',
  {
    ...agentColumns(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    image: text('image'),
    setByWallet: text('set_by_wallet').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.collection, t.tokenId] }),
    check('agent_profiles_set_by_wallet', sql`${t.setByWallet} ~ '^0x[0-9a-f]{40}$'`),
  ],
);

/**
 * External tool servers (MCP) an agent may call. `url` is the canonical form, unique per agent;
 * the credential (bearer token or custom header value) lives in the vault, the header name here.
 * `tools` is the snapshot of tools/list taken when the connection was registered.
 */
export const mcpConnections = gateway.table(
  'mcp_connections',
  {
    id: uuid('id').primaryKey(),
    ...agentColumns(),
    url: text('url').notNull(),
    name: text('name'),
    authType: text('auth_type').notNull(),
    headerName: text('header_name'),
    secretEntry: uuid('secret_entry').references(() => vaultEntries.id, { onDelete: 'set null' }),
    tools: jsonb('tools').notNull(),
    /**
     * The wallet (lower-case) that registered the connection or last entered its credential with
     * PUT …/auth; only that wallet may use it (never a later owner). Null: registered before it was recorded.
     */
    createdByWallet: text('created_by_wallet'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Deadline of one operation on this connection, ms; null: the deployment's `MCP_TIMEOUT_MS`. */
    timeoutMs: integer('timeout_ms'),
    /**
     * The MCP session kept across calls (one handshake, not one per call): the server's `Mcp-Session-Id` (null: the server
     * gave none) and the protocol version negotiated by `initialize` (null: no handshake yet, or a
     * plain server). Replaced when the server drops the session; cleared with a new credential.
     */
    sessionId: text('session_id'),
    protocolVersion: text('protocol_version'),
    /**
     * OAuth connections (`auth_type = 'oauth'`): what the flow found and chose, no secret in it
     * (src/tool-servers/oauth/types.ts, `OAuthState`): the resource, the authorization server's
     * issuer and endpoints, the client id and how it authenticates, the scopes asked and granted,
     * when the access token runs out. `secret_entry` then holds the client's secret, if any.
     */
    oauth: jsonb('oauth'),
    /** OAuth connections: the vault entry of the access and refresh tokens (bound to the wallet that authorized); null: not authorized. */
    tokenEntry: uuid('token_entry').references(() => vaultEntries.id, { onDelete: 'set null' }),
  },
  (t) => [
    unique('mcp_connections_agent_url').on(t.chainId, t.collection, t.tokenId, t.url),
    check('mcp_connections_timeout_ms', sql`${t.timeoutMs} between 1000 and 60000`),
    check('mcp_connections_auth_type', sql`${t.authType} in ('none', 'bearer', 'header', 'oauth')`),
    check('mcp_connections_created_by_wallet', sql`${t.createdByWallet} ~ '^0x[0-9a-f]{40}$'`),
  ],
);

/**
 * External Postgres databases an agent may read (two-step setup): step 1 records the connection
 * (password in the vault) and the tables it could see; step 2 activates a chosen subset. One
 * active setup per agent; secrets are never returned.
 */
export const databaseSetups = gateway.table(
  'database_setups',
  {
    id: uuid('id').primaryKey(),
    ...agentColumns(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    database: text('database').notNull(),
    userName: text('user_name').notNull(),
    ssl: text('ssl').notNull(),
    passwordEntry: uuid('password_entry').references(() => vaultEntries.id, { onDelete: 'set null' }),
    offeredTables: jsonb('offered_tables').notNull(),
    activeTables: jsonb('active_tables'),
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
  },
  (t) => [
    index('database_setups_agent').on(t.chainId, t.collection, t.tokenId),
    check('database_setups_status', sql`${t.status} in ('pending', 'active')`),
    check('database_setups_ssl', sql`${t.ssl} in ('require', 'disable')`),
  ],
);

/**
 * Agent keys: credentials an owner gives automation instead of a wallet. Only the
 * SHA-256 of the key is stored (the key is `agk_` + 160 random bits, shown once). A key acts for
 * `created_by_wallet` on its agent only, within `scopes`, and only while that wallet owns the
 * agent on-chain. `last_used_at`/`use_count` are recorded off the hot path (src/keys/usage.ts).
 * `revoked_reason` is `owner` (DELETE by an owner) or `owner_changed` (seen after a transfer).
 */
export const agentKeys = gateway.table(
  'agent_keys',
  {
    id: uuid('id').primaryKey(),
    ...agentColumns(),
    /** Lower-case hex SHA-256 of the whole key text. */
    keyHash: text('key_hash').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    /** Lower-case wallet whose JWT created the key: the wallet the key acts for. */
    createdByWallet: text('created_by_wallet').notNull(),
    /**
     * `delegate` when the maker was the owner's delegate (admin) rather than the owner: such a key
     * serves while its maker still is a delegate with that access, and an owner's key management
     * leaves it alone. Null: the owner made it.
     */
    createdVia: text('created_via'),
    /** For a key a delegate made: the lower-case owner it acted for; the key serves only while that wallet owns the agent. */
    actingForWallet: text('acting_for_wallet'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    useCount: bigint('use_count', { mode: 'number' }).notNull().default(0),
    /** This key's daily token limit: its own usage of the UTC day, input + output. Null: none. */
    tokensPerDay: bigint('tokens_per_day', { mode: 'number' }),
    /** The tools the key may list and call on the agent's MCP server. Null: every tool. */
    tools: text('tools').array(),
  },
  (t) => [
    unique('agent_keys_key_hash').on(t.keyHash),
    index('agent_keys_agent').on(t.chainId, t.collection, t.tokenId),
    check('agent_keys_key_hash_format', sql`${t.keyHash} ~ '^[0-9a-f]{64}$'`),
    check('agent_keys_created_by_wallet', sql`${t.createdByWallet} ~ '^0x[0-9a-f]{40}$'`),
    check('agent_keys_revoked_reason', sql`${t.revokedReason} in ('owner', 'owner_changed')`),
    check('agent_keys_tokens_per_day', sql`${t.tokensPerDay} > 0`),
    check('agent_keys_tools', sql`cardinality(${t.tools}) between 1 and 100`),
    check('agent_keys_created_via', sql`${t.createdVia} in ('delegate')`),
  ],
);

/**
 * The audit trail (docs/security.md): one row per administrative change and per tool call, by the
 * wallet or the agent key that did it. `target` names what was acted on (template key, connection
 * id, key id, tool name...), never a secret and never agent memory; a tool call's arguments only
 * as the SHA-256 of their JSON. Rows older than 90 days go in the Cron clean-up.
 */
export const auditLog = gateway.table(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...agentColumns(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** Lower-case wallet of an owner's token; null when an agent key acted. */
    actorWallet: text('actor_wallet'),
    /** The agent key that acted (a reply's tool calls); null for a wallet. */
    actorKeyId: uuid('actor_key_id'),
    /** An OAuth app that acted for `actorWallet` (its client id); null for the wallet's own token or a key. */
    actorClientId: text('actor_client_id'),
    /** How `actorWallet` came in when it is not the owner: `delegate` or `renter`; null for the owner. */
    actorVia: text('actor_via'),
    action: text('action').notNull(),
    target: jsonb('target').notNull(),
    /** `ok`, or the error code the action ended with. */
    outcome: text('outcome').notNull(),
    durationMs: integer('duration_ms'),
    argumentsSha256: text('arguments_sha256'),
  },
  (t) => [
    index('audit_log_agent_id').on(t.chainId, t.collection, t.tokenId, t.id.desc()),
    index('audit_log_at').on(t.at),
    check('audit_log_actor', sql`(${t.actorWallet} is null) <> (${t.actorKeyId} is null)`),
    check('audit_log_actor_wallet', sql`${t.actorWallet} ~ '^0x[0-9a-f]{40}$'`),
    check(
      'audit_log_actor_client',
      sql`${t.actorClientId} is null or (${t.actorWallet} is not null and length(${t.actorClientId}) <= 512)`,
    ),
    check(
      'audit_log_actor_via',
      sql`${t.actorVia} is null or (${t.actorWallet} is not null and ${t.actorVia} in ('delegate', 'renter', 'payer'))`,
    ),
    check('audit_log_action', sql`${t.action} ~ '^[a-z_]{1,32}\\.[a-z_]{1,32}$'`),
    check('audit_log_outcome', sql`${t.outcome} ~ '^[a-z0-9_]{1,64}$'`),
    check('audit_log_arguments_sha256', sql`${t.argumentsSha256} ~ '^[0-9a-f]{64}$'`),
  ],
);

/**
 * What an agent's model calls are charged against its daily token limits (src/usage/ledger.ts):
 * per agent (`agent_ref` is `chainId:collection:tokenId`), UTC day and scope (`agent` for the
 * agent's total, or a credential, `wallet:0x…` / `key:{id}`, for its own limit). `tokens` is the
 * day's settled usage plus the estimates of the calls still running; each call reserves its
 * estimate with one conditional upsert (so replies in any isolate see it) and settles it to the
 * provider's usage when it ends. A call whose isolate died keeps its estimate counted. Rows of
 * past days go in the Cron clean-up.
 */
export const usageLedger = gateway.table(
  'usage_ledger',
  {
    agentRef: text('agent_ref').notNull(),
    day: date('day').notNull(),
    scope: text('scope').notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull(),
    /** The limit the last reservation was checked against (null: none): how the upsert compares. */
    ceiling: bigint('ceiling', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.agentRef, t.day, t.scope] })],
);

/**
 * Paid replies (POST …/paid/ask), one row per payment authorization: claimed before the reply runs
 * (a second use of the same authorization, while the first runs or after it was settled, finds the
 * row and is refused), then marked settled with its transaction, or deleted when the reply failed
 * or the payment could not be settled (nothing was charged; the authorization may be used again).
 */
export const paidCalls = gateway.table(
  'paid_calls',
  {
    chainId: integer('chain_id').notNull(),
    /** Lower-case address of the payer (the authorization's `from`). */
    payer: text('payer').notNull(),
    /** The authorization's 32-byte nonce, lower-case hex. */
    nonce: text('nonce').notNull(),
    /** The agent paid for: `agentRefText` (chain id, lower-case collection, token id). */
    agentRef: text('agent_ref').notNull(),
    /** Lower-case address of the owner paid (the payment's `payTo`). */
    payTo: text('pay_to').notNull(),
    /** The amount in USDC units. */
    amountUnits: bigint('amount_units', { mode: 'number' }).notNull(),
    /**
     * `running` while the reply runs, `settled` once the transfer is on chain, `unsettled` when the
     * hourly reconciliation found the authorization never used (the reply was given, nothing was
     * paid; the authorization still buys no other reply).
     */
    state: text('state').notNull(),
    /** The settlement's transaction hash (settled rows; null when the reconciliation saw the authorization used but could not find its transaction). */
    transaction: text('transaction'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.payer, t.nonce] }),
    index('paid_calls_agent_day').on(t.agentRef, t.settledAt),
    check('paid_calls_state', sql`${t.state} in ('running', 'settled', 'unsettled')`),
  ],
);
