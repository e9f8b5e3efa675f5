import { and, count, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Agent } from '../identity/agent';
import { agentActor, auditChange, auditToolCalls } from '../audit/entry';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { mcpConnections, vaultEntries } from '../storage/schema';
import { walletKey } from '../vault/owner';
import { agentRef, agentRefText, ofAgent, type AgentRef } from '../storage/agent-rows';
import { deleteSecret, storeSecret } from '../vault/store';
import type { McpAuth, McpClient, Tool } from './client';
import { checkCallResult, type ToolCallResult } from './call-result';
import {
  checkAuthInput,
  clientAuth,
  credentialRecord,
  reentryRequired,
  registeredBy,
  view,
  type AuthInput,
  type ConnectionView,
  type Row,
} from './connection-view';
import { validateArguments } from './schema-check';
import { checkArguments, MAX_CONNECTIONS_PER_AGENT } from './tool-limits';
import { connectionTimeout, inspectToolServer, sessionToEnd, withConnection, type McpDeps } from './tool-session';
import { canonicalToolServerUrl } from './url';
import { authorizationRequired, withOAuthConnection } from './oauth/calls';
import { canAuthorize, type OAuthDeps } from './oauth/deps';
import { authorizeUrlIfShown, prepareOAuth } from './oauth/flow';

export type { AuthInput, ConnectionView, Row } from './connection-view';
export type { McpDeps } from './tool-session';

const DUPLICATE = 'MCPConnection URL already exists for this agent';
const LIMIT = `An agent can have at most ${MAX_CONNECTIONS_PER_AGENT} tool-server connections: remove one first`;

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; i++) {
    if ((e as { code?: unknown }).code === '23505') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Registers a tool server: URL rules (https only, canonical, unique per agent), the handshake and
 * tools/list under the shared acceptance rule (./tool-rules), then the credential into the vault
 * and the connection with its tool snapshot and the session the check opened, in one transaction.
 */
export async function addConnection(
  deps: McpDeps,
  agent: Agent,
  input: { url: string; name?: string; auth: AuthInput; timeoutMs?: number },
): Promise<ConnectionView> {
  const canonical = canonicalToolServerUrl(input.url, deps.outbound);
  if (!canonical.ok) throw new AppError('invalid_tool_server_url', canonical.message, { details: { reason: canonical.reason } });
  checkAuthInput(input.auth);
  const auth = input.auth;
  const ref = agentRef(agent);
  const existing = await existingConnectionId(deps, ref, canonical.url);
  if (existing !== undefined) throw connectionExists(existing);
  if ((await connectionCount(deps.db.orm, ref)) >= MAX_CONNECTIONS_PER_AGENT) throw new AppError('mcp_connection_limit', LIMIT);

  const timeoutMs = connectionTimeout(deps, { timeoutMs: input.timeoutMs ?? null });
  // An OAuth server is not inspected now: its tools are listed once the owner authorized it.
  const prepared = auth.type === 'oauth' ? await prepareOAuth(oauthDepsOf(deps), canonical.url, auth) : undefined;
  const checked =
    auth.type === 'oauth' ? { tools: [], session: undefined } : await inspectToolServer(deps, canonical.url, clientAuth(auth), timeoutMs);
  const secret = auth.type === 'oauth' ? prepared?.clientSecret : auth.type === 'none' ? undefined : auth.value;

  const id = crypto.randomUUID();
  const ring = secret === undefined ? undefined : await deps.ring();
  try {
    const row = await deps.db.orm.transaction(async (tx) => {
      // Concurrent registrations of one agent take turns here, so the limit holds.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mcp_connections:${agentRefText(ref)}`}, 0))`);
      if ((await connectionCount(tx, ref)) >= MAX_CONNECTIONS_PER_AGENT) throw new AppError('mcp_connection_limit', LIMIT);
      const secretEntry =
        secret === undefined || !ring
          ? null
          : await storeSecret(tx, ring, ref, { record: credentialRecord(id), wallet: agent.owner }, secret);
      const [saved] = await tx
        .insert(mcpConnections)
        .values({
          id,
          ...ref,
          url: canonical.url,
          name: input.name ?? null,
          authType: auth.type,
          headerName: auth.type === 'header' ? auth.headerName : null,
          secretEntry,
          tools: checked.tools,
          createdByWallet: walletKey(agent.owner),
          timeoutMs: input.timeoutMs ?? null,
          sessionId: checked.session?.id ?? null,
          protocolVersion: checked.session?.protocolVersion ?? null,
          oauth: prepared?.state ?? null,
        })
        .returning();
      await auditChange(tx, agent, 'mcp_connection.add', { connectionId: id });
      return saved!;
    });
    const shown = view(row, walletKey(agent.owner), agent.owner, connectionTimeout(deps, {}));
    const url = prepared ? await authorizeUrlIfShown(oauthDepsOf(deps), agent, row) : undefined;
    return url === undefined ? shown : { ...shown, authorizeUrl: url };
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
    const tokens = alias(vaultEntries, 'token_entries');
    const rows = await deps.db.orm
      .select({ connection: mcpConnections, entryWallet: vaultEntries.ownerWallet, tokenWallet: tokens.ownerWallet })
      .from(mcpConnections)
      .leftJoin(vaultEntries, eq(vaultEntries.id, mcpConnections.secretEntry))
      .leftJoin(tokens, eq(tokens.id, mcpConnections.tokenEntry))
      .where(ofAgent(mcpConnections, agentRef(agent)))
      .orderBy(mcpConnections.createdAt, mcpConnections.id);
    return rows.map((r) => view(r.connection, r.entryWallet, agent.owner, connectionTimeout(deps, {}), r.tokenWallet));
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

/**
 * Removes the connection and destroys its credential, then ends its session on the server (a
 * short bounded DELETE, best effort). A second delete is 404.
 */
export async function removeConnection(deps: McpDeps, agent: Agent, id: string): Promise<void> {
  const ref = agentRef(agent);
  const stored = await findConnection(deps, agent, id);
  const session = await sessionToEnd(deps, agent, stored);
  let removed: Row | undefined;
  try {
    removed = await deps.db.orm.transaction(async (tx) => {
      const [row] = await tx
        .delete(mcpConnections)
        .where(and(ofAgent(mcpConnections, ref), eq(mcpConnections.id, id)))
        .returning();
      if (row?.secretEntry) await deleteSecret(tx, row.secretEntry);
      if (row?.tokenEntry) await deleteSecret(tx, row.tokenEntry);
      if (row) await auditChange(tx, agent, 'mcp_connection.remove', { connectionId: id });
      return row;
    });
  } catch (err) {
    throw databaseError(err);
  }
  if (!removed) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
  await session?.close();
}

/** A live tools/list with the server's health (latency). */
export async function liveTools(
  deps: McpDeps,
  agent: Agent,
  id: string,
): Promise<{ tools: Tool[]; health: { ok: true; latencyMs: number } }> {
  const row = await findConnection(deps, agent, id);
  const started = Date.now();
  const list = (client: McpClient) => client.listTools();
  const tools = row.authType === 'oauth' ? await withOAuthConnection(deps, agent, row, list) : await withConnection(deps, agent, row, list);
  return { tools, health: { ok: true, latencyMs: Date.now() - started } };
}

/**
 * tools/call, with the arguments checked against the tool's schema (from registration) first, in
 * the connection's kept session; the result is held to MCP's shape and the tool's outputSchema.
 * A call that ran (whatever its outcome) is one audit entry of the owner; a refused one none.
 */
export async function callTool(
  deps: McpDeps,
  agent: Agent,
  id: string,
  input: { name: string; arguments: Record<string, unknown> },
): Promise<ToolCallResult> {
  const row = await findConnection(deps, agent, id);
  await needsAuthorization(deps, agent, row);
  const tool = checkedTool(row, agent, input);
  const started = Date.now();
  let outcome = 'internal_error';
  try {
    const result = await runToolCall(deps, agent, row, tool, input);
    outcome = result.isError === true ? 'tool_error' : 'ok';
    return result;
  } catch (err) {
    if (err instanceof AppError) outcome = err.code;
    throw err;
  } finally {
    const call = { tool: input.name, connectionId: row.id, arguments: input.arguments, outcome, durationMs: Date.now() - started };
    await auditToolCalls(deps.db, agent, agentActor(agent), [call]);
  }
}

/**
 * `callTool` on a connection the caller already read (a reply's tools snapshot), with its
 * credential when the caller opened it (`connectionAuth`): the same checks, no read per call.
 * Calls on the same `row` share one session (one handshake); `signal` abandons the call at once
 * (a reply that ended), as a `tool_server_timeout`.
 */
export async function callConnectionTool(
  deps: McpDeps,
  agent: Agent,
  row: Row,
  input: { name: string; arguments: Record<string, unknown> },
  auth?: McpAuth,
  signal?: AbortSignal,
): Promise<ToolCallResult> {
  await needsAuthorization(deps, agent, row);
  return runToolCall(deps, agent, row, checkedTool(row, agent, input), input, auth, signal);
}

/** An OAuth connection its owner has not authorized (yet, or again): 424 before anything else. */
async function needsAuthorization(deps: McpDeps, agent: Agent, row: Row): Promise<void> {
  if (row.authType === 'oauth' && row.tokenEntry === null && registeredBy(row, agent.owner)) {
    throw await authorizationRequired(deps, agent, row);
  }
}

/** The tool a call names, once the call passed every check that needs no tool server (refusals). */
function checkedTool(row: Row, agent: Agent, input: { name: string; arguments: Record<string, unknown> }): Tool {
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
  return tool;
}

async function runToolCall(
  deps: McpDeps,
  agent: Agent,
  row: Row,
  tool: Tool,
  input: { name: string; arguments: Record<string, unknown> },
  auth?: McpAuth,
  signal?: AbortSignal,
): Promise<ToolCallResult> {
  const call = (client: McpClient) => client.callTool(input.name, input.arguments, signal === undefined ? {} : { signal });
  const result =
    row.authType === 'oauth' ? await withOAuthConnection(deps, agent, row, call) : await withConnection(deps, agent, row, call, auth);
  return checkCallResult(tool, result);
}

/** The deps of a route that may start an OAuth flow (the connection routes give them). */
export function oauthDepsOf(deps: McpDeps): OAuthDeps {
  if (!canAuthorize(deps)) throw new Error('OAuth flow without the origin and state store');
  return deps;
}
