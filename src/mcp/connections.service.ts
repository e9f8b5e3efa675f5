import { and, count, eq, sql } from 'drizzle-orm';
import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { mcpConnections, vaultEntries } from '../storage/schema';
import type { KeyRing } from '../vault/crypto';
import type { OutboundOptions } from '../net/outbound-policy';
import { credentialState, walletKey, type CredentialState } from '../vault/owner';
import { agentRef, agentRefText, ofAgent, type AgentRef } from '../storage/agent-rows';
import { deleteSecret, readSecret, storeSecret } from '../vault/store';
import {
  checkCredentialHeader,
  checkCredentialValue,
  checkToolServer,
  createMcpClient,
  McpError,
  type CallResult,
  type McpAuth,
  type Tool,
} from './client';
import { toolServerError } from './errors';
import { validateArguments } from './schema-check';
import { checkArguments, checkSnapshot, MAX_CONNECTIONS_PER_AGENT } from './tool-limits';
import { canonicalToolServerUrl } from './url';

export type AuthInput = { type: 'none' } | { type: 'bearer'; value: string } | { type: 'header'; headerName: string; value: string };

export interface ConnectionView {
  id: string;
  /** The full URL for the wallet that registered the connection; its origin only for anyone else. */
  url: string;
  name: string | null;
  /** `valueSet`: a credential entered by the agent's current owner is stored. */
  auth: { type: 'none' | 'bearer' | 'header'; headerName?: string; valueSet: boolean };
  /** Whether the connection can be used by the current owner as it is (see CredentialState). */
  credential: CredentialState;
  tools: { name: string; description: string }[];
  createdAt: string;
}

export interface McpDeps {
  db: Database;
  ring: () => Promise<KeyRing>;
  /** fetch for tool servers (tests route https hosts to loopback servers). */
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** The outbound network policy (DESIGN §8): production's unless the local stack's switch is on. */
  outbound: OutboundOptions;
}

const DUPLICATE = 'MCPConnection URL already exists for this agent';
const LIMIT = `An agent can have at most ${MAX_CONNECTIONS_PER_AGENT} tool-server connections: remove one first`;
export type Row = typeof mcpConnections.$inferSelect;

/** The vault record name of a connection's credential. */
export const credentialRecord = (id: string) => `mcp_connection:${id}`;

/**
 * Whether `wallet` registered the connection (or confirmed it with PUT …/auth). A URL often carries
 * a key in its path or query, so a connection registered by another wallet, or before registrants
 * were recorded, is never used for `wallet` and its URL is shown as its origin only.
 */
export function registeredBy(row: Pick<Row, 'createdByWallet'>, wallet: string): boolean {
  return row.createdByWallet !== null && row.createdByWallet === walletKey(wallet);
}

/** The connection as its current owner sees it; `entryWallet` is who entered its credential. */
export function view(row: Row, entryWallet: string | null, currentOwner: string): ConnectionView {
  const tools = (row.tools as Tool[]).map((t) => ({ name: t.name, description: t.description }));
  const type = row.authType as ConnectionView['auth']['type'];
  const own = registeredBy(row, currentOwner);
  const credential = own
    ? credentialState(type !== 'none', row.secretEntry === null ? null : entryWallet, currentOwner)
    : 'reenter_required';
  return {
    id: row.id,
    url: own ? row.url : new URL(row.url).origin,
    name: row.name,
    auth: { type, ...(row.headerName ? { headerName: row.headerName } : {}), valueSet: credential === 'set' },
    credential,
    tools,
    createdAt: row.createdAt.toISOString(),
  };
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; i++) {
    if ((e as { code?: unknown }).code === '23505') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export function clientAuth(auth: AuthInput): McpAuth {
  switch (auth.type) {
    case 'none':
      return { type: 'none' };
    case 'bearer':
      return { type: 'bearer', token: auth.value };
    case 'header':
      return { type: 'header', name: auth.headerName, value: auth.value };
  }
}

/** Checks a credential before it is used or stored (400 `validation_failed`); never echoes it. */
export function checkAuthInput(auth: AuthInput): void {
  if (auth.type === 'none') return;
  const check = auth.type === 'header' ? checkCredentialHeader(auth.headerName, auth.value) : checkCredentialValue(auth.value);
  if (!check.ok)
    throw new AppError('validation_failed', check.problem, { details: { issues: [{ path: 'auth', message: check.problem }] } });
}

/**
 * Registers a tool server: URL rules (https only, canonical, unique per agent), the handshake and
 * tools/list with every input schema validated, then the credential into the vault and the
 * connection with its tool snapshot, in one transaction.
 */
export async function addConnection(
  deps: McpDeps,
  agent: Agent,
  input: { url: string; name?: string; auth: AuthInput },
): Promise<ConnectionView> {
  const canonical = canonicalToolServerUrl(input.url, deps.outbound);
  if (!canonical.ok) throw new AppError('invalid_tool_server_url', canonical.message, { details: { reason: canonical.reason } });
  checkAuthInput(input.auth);
  const ref = agentRef(agent);
  const existing = await existingConnectionId(deps, ref, canonical.url);
  if (existing !== undefined) throw connectionExists(existing);
  if ((await connectionCount(deps.db.orm, ref)) >= MAX_CONNECTIONS_PER_AGENT) throw new AppError('mcp_connection_limit', LIMIT);

  const client = createMcpClient({ url: canonical.url, auth: clientAuth(input.auth), fetch: deps.fetch, timeoutMs: deps.timeoutMs });
  const checked = await checkToolServer(client);
  await client.close();
  if (!checked.ok) throw toolServerError(checked.error, 'register');
  const snapshot = checkSnapshot(checked.tools);
  if (!snapshot.ok) throw new AppError('tool_snapshot_too_large', snapshot.problem);

  const id = crypto.randomUUID();
  const ring = input.auth.type === 'none' ? undefined : await deps.ring();
  try {
    const row = await deps.db.orm.transaction(async (tx) => {
      // Concurrent registrations of one agent take turns here, so the limit holds.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mcp_connections:${agentRefText(ref)}`}, 0))`);
      if ((await connectionCount(tx, ref)) >= MAX_CONNECTIONS_PER_AGENT) throw new AppError('mcp_connection_limit', LIMIT);
      const secretEntry =
        input.auth.type === 'none' || !ring
          ? null
          : await storeSecret(tx, ring, ref, { record: credentialRecord(id), wallet: agent.owner }, input.auth.value);
      const [saved] = await tx
        .insert(mcpConnections)
        .values({
          id,
          ...ref,
          url: canonical.url,
          name: input.name ?? null,
          authType: input.auth.type,
          headerName: input.auth.type === 'header' ? input.auth.headerName : null,
          secretEntry,
          tools: checked.tools,
          createdByWallet: walletKey(agent.owner),
        })
        .returning();
      return saved!;
    });
    return view(row, walletKey(agent.owner), agent.owner);
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (isUniqueViolation(err)) throw connectionExists(await existingConnectionId(deps, ref, canonical.url).catch(() => undefined));
    throw databaseError(err);
  }
}

/** 400 `mcp_connection_exists` naming the existing connection (`details.id`), so a re-run can reuse it. */
function connectionExists(id: string | undefined): AppError {
  return new AppError('mcp_connection_exists', DUPLICATE, id === undefined ? {} : { details: { id } });
}

async function existingConnectionId(deps: McpDeps, ref: AgentRef, url: string): Promise<string | undefined> {
  const [row] = await deps.db.orm
    .select({ id: mcpConnections.id })
    .from(mcpConnections)
    .where(and(ofAgent(mcpConnections, ref), eq(mcpConnections.url, url)))
    .limit(1)
    .catch((err: unknown) => {
      throw databaseError(err);
    });
  return row?.id;
}

async function connectionCount(orm: Pick<Database['orm'], 'select'>, ref: AgentRef): Promise<number> {
  try {
    const [row] = await orm.select({ n: count() }).from(mcpConnections).where(ofAgent(mcpConnections, ref));
    return row?.n ?? 0;
  } catch (err) {
    throw databaseError(err);
  }
}

export async function listConnections(deps: McpDeps, agent: Agent): Promise<ConnectionView[]> {
  try {
    const rows = await deps.db.orm
      .select({ connection: mcpConnections, entryWallet: vaultEntries.ownerWallet })
      .from(mcpConnections)
      .leftJoin(vaultEntries, eq(vaultEntries.id, mcpConnections.secretEntry))
      .where(ofAgent(mcpConnections, agentRef(agent)))
      .orderBy(mcpConnections.createdAt, mcpConnections.id);
    return rows.map((r) => view(r.connection, r.entryWallet, agent.owner));
  } catch (err) {
    throw databaseError(err);
  }
}

export async function findConnection(deps: McpDeps, agent: Agent, id: string): Promise<Row> {
  let row: Row | undefined;
  try {
    [row] = await deps.db.orm
      .select()
      .from(mcpConnections)
      .where(and(ofAgent(mcpConnections, agentRef(agent)), eq(mcpConnections.id, id)))
      .limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
  return row;
}

/** Removes the connection and destroys its credential. A second delete is 404. */
export async function removeConnection(deps: McpDeps, agent: Agent, id: string): Promise<void> {
  const ref = agentRef(agent);
  let removed: Row | undefined;
  try {
    removed = await deps.db.orm.transaction(async (tx) => {
      const [row] = await tx
        .delete(mcpConnections)
        .where(and(ofAgent(mcpConnections, ref), eq(mcpConnections.id, id)))
        .returning();
      if (row?.secretEntry) await deleteSecret(tx, row.secretEntry);
      return row;
    });
  } catch (err) {
    throw databaseError(err);
  }
  if (!removed) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
}

/**
 * A client with the connection's credential, which only the wallet that registered the connection
 * and entered the credential may use: after the agent changes hands, 409
 * `credential_reentry_required` (whatever the auth type) until the new owner enters theirs.
 */
async function connectedClient(deps: McpDeps, agent: Agent, row: Row) {
  if (!registeredBy(row, agent.owner)) throw reentryRequired(row.id);
  // The policy may be stricter now than when the URL was stored (a local-stack URL, a newer rule).
  const allowed = canonicalToolServerUrl(row.url, deps.outbound);
  if (!allowed.ok) throw new AppError('invalid_tool_server_url', allowed.message, { details: { reason: allowed.reason } });
  let auth: McpAuth = { type: 'none' };
  if (row.authType !== 'none') {
    const read = row.secretEntry
      ? await readSecret(
          deps.db.orm,
          await deps.ring(),
          agentRef(agent),
          { record: credentialRecord(row.id), wallet: agent.owner },
          row.secretEntry,
        )
      : ({ state: 'missing' } as const);
    if (read.state !== 'open') throw reentryRequired(row.id);
    auth =
      row.authType === 'bearer'
        ? { type: 'bearer', token: read.secret }
        : { type: 'header', name: row.headerName ?? '', value: read.secret };
  }
  return createMcpClient({ url: row.url, auth, fetch: deps.fetch, timeoutMs: deps.timeoutMs });
}

function reentryRequired(connectionId: string): AppError {
  return new AppError(
    'credential_reentry_required',
    "The connection was registered, or its credential entered, by another wallet than the agent's current owner: confirm or replace it with PUT …/mcp/connection/{id}/auth",
    { details: { connectionId } },
  );
}

/** A live tools/list with the server's health (latency). */
export async function liveTools(
  deps: McpDeps,
  agent: Agent,
  id: string,
): Promise<{ tools: Tool[]; health: { ok: true; latencyMs: number } }> {
  const row = await findConnection(deps, agent, id);
  const client = await connectedClient(deps, agent, row);
  const started = Date.now();
  try {
    const tools = await client.listTools();
    return { tools, health: { ok: true, latencyMs: Date.now() - started } };
  } catch (err) {
    if (err instanceof McpError) throw toolServerError(err, 'use');
    throw err;
  } finally {
    await client.close();
  }
}

/** tools/call, with the arguments checked against the tool's schema (from registration) first. */
export async function callTool(
  deps: McpDeps,
  agent: Agent,
  id: string,
  input: { name: string; arguments: Record<string, unknown> },
): Promise<CallResult> {
  const row = await findConnection(deps, agent, id);
  if (!registeredBy(row, agent.owner)) throw reentryRequired(row.id);
  const tool = (row.tools as Tool[]).find((t) => t.name === input.name);
  if (!tool) throw new AppError('tool_not_found', `The connection has no tool named ${input.name}`);
  const size = checkArguments(input.arguments);
  if (!size.ok) throw new AppError('tool_arguments_too_large', `The arguments are too large: ${size.problem}`);
  const valid = validateArguments(tool.inputSchema, input.arguments);
  if (!valid.ok) {
    const message = valid.tooCostly
      ? `The arguments take too much work to check against the input schema of ${tool.name}`
      : `The arguments do not match the input schema of ${tool.name}`;
    throw new AppError('invalid_tool_arguments', message, { details: { problems: valid.problems } });
  }
  const client = await connectedClient(deps, agent, row);
  try {
    return await client.callTool(input.name, input.arguments);
  } catch (err) {
    if (err instanceof McpError) throw toolServerError(err, 'use');
    throw err;
  } finally {
    await client.close();
  }
}
