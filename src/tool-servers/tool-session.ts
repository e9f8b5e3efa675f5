/**
 * One MCP session per connection, kept across requests (one handshake, not one per call). Workers isolates are
 * short-lived, so the session lives in the connection's row (`session_id`, `protocol_version`),
 * which every call reads anyway: a steady session costs no extra query, and a new one (the server
 * dropped the old) one UPDATE. No DELETE per call; removing the connection ends the session with
 * the client's short close deadline.
 */
import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import type { OutboundOptions } from '../net/outbound-policy';
import { agentRef } from '../storage/agent-rows';
import type { Database } from '../storage/db';
import type { KeyRing } from '../vault/crypto';
import { openEntry, readSecret, type SecretRead, type VaultEntry } from '../vault/store';
import {
  checkToolServer,
  createMcpClient,
  DEFAULT_TIMEOUT_MS,
  type HandshakeShare,
  McpError,
  type McpAuth,
  type McpClient,
  type McpSession,
  type Tool,
} from './client';
import { credentialRecord, reentryRequired, registeredBy, type Row } from './connection-view';
import { toolServerError } from './errors';
import { checkSnapshot } from './tool-rules';
import { canonicalToolServerUrl } from './url';

export interface McpDeps {
  db: Database;
  ring: () => Promise<KeyRing>;
  /** fetch for tool servers (tests route https hosts to loopback servers). */
  fetch?: typeof fetch;
  /** The deployment's default deadline of one operation (`MCP_TIMEOUT_MS`); a connection may set its own. */
  timeoutMs?: number;
  /** Absolute limit of one tool call however much progress it sends (`MCP_CALL_CEILING_MS`). */
  ceilingMs?: number;
  /** The outbound network policy (src/net): production's unless the local stack's switch is on. */
  outbound: OutboundOptions;
}

/** The connection's own deadline, else the deployment's. */
export function connectionTimeout(deps: McpDeps, row: Pick<Row, 'timeoutMs'> | { timeoutMs?: number | null }): number {
  return row.timeoutMs ?? deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/**
 * What registration and credential re-entry run: tools/list under the shared acceptance rule
 * (./tool-rules) and the snapshot limits. Returns the tools and the session it opened, to keep.
 */
export async function inspectToolServer(
  deps: McpDeps,
  url: string,
  auth: McpAuth,
  timeoutMs: number,
): Promise<{ tools: Tool[]; session: McpSession | undefined }> {
  // Registration opens with `initialize` (as MCP asks); a plain JSON-RPC server refusing it goes on without.
  const client = createMcpClient({ url, auth, fetch: deps.fetch, timeoutMs, handshakeFirst: true });
  const checked = await checkToolServer(client);
  if (!checked.ok) {
    await client.close();
    throw toolServerError(checked.error, 'register');
  }
  const snapshot = checkSnapshot(checked.tools);
  if (!snapshot.ok) {
    await client.close();
    throw new AppError('tool_snapshot_too_large', snapshot.problem);
  }
  return { tools: checked.tools, session: client.session() };
}

/**
 * The connection's credential, opened for the current owner: from `entry` when the caller read it
 * with the connection (a reply's tools snapshot), else read here. Only the wallet that registered
 * the connection and entered the credential may use it: after the agent changes hands, 409
 * `credential_reentry_required` (whatever the auth type) until the new owner enters theirs.
 */
export async function connectionAuth(deps: McpDeps, agent: Agent, row: Row, entry?: VaultEntry | null): Promise<McpAuth> {
  if (!registeredBy(row, agent.owner)) throw reentryRequired(row.id);
  if (row.authType === 'none') return { type: 'none' };
  const binding = { record: credentialRecord(row.id), wallet: agent.owner };
  let read: SecretRead = { state: 'missing' };
  if (row.secretEntry) {
    read =
      entry === undefined
        ? await readSecret(deps.db.orm, await deps.ring(), agentRef(agent), binding, row.secretEntry)
        : await openEntry(await deps.ring(), agentRef(agent), binding, entry);
  }
  if (read.state !== 'open') throw reentryRequired(row.id);
  return row.authType === 'bearer'
    ? { type: 'bearer', token: read.secret }
    : { type: 'header', name: row.headerName ?? '', value: read.secret };
}

/**
 * A client with the connection's credential (`auth`, opened by `connectionAuth`; read here when
 * absent) and kept session, for the wallet that registered the connection (else 409).
 */
export async function connectedClient(deps: McpDeps, agent: Agent, row: Row, auth?: McpAuth): Promise<McpClient> {
  if (!registeredBy(row, agent.owner)) throw reentryRequired(row.id);
  // The policy may be stricter now than when the URL was stored (a local-stack URL, a newer rule).
  const allowed = canonicalToolServerUrl(row.url, deps.outbound);
  if (!allowed.ok) throw new AppError('invalid_tool_server_url', allowed.message, { details: { reason: allowed.reason } });
  return createMcpClient({
    url: row.url,
    auth: auth ?? (await connectionAuth(deps, agent, row)),
    fetch: deps.fetch,
    handshakes: handshakesOf(row),
    timeoutMs: connectionTimeout(deps, row),
    ...(deps.ceilingMs === undefined ? {} : { ceilingMs: deps.ceilingMs }),
    ...(row.protocolVersion === null ? {} : { session: storedSession({ ...row, protocolVersion: row.protocolVersion }) }),
  });
}

/**
 * The re-handshake of each connection in this isolate: the session that replaced a dropped one,
 * while it is being opened and after, so that the requests that find the session dropped at once
 * (each with its own client) open one new session, not one each. Keyed by the connection and its
 * credential entry (a new credential never takes a session opened with the old one); only the
 * latest replacement per connection is kept, and a failed one is forgotten.
 */
const replacements = new Map<string, { dropped: string; session: Promise<McpSession | undefined> }>();

function handshakesOf(row: Row): HandshakeShare {
  const key = `${row.id}\n${row.secretEntry ?? ''}`;
  return {
    replace(dropped, open) {
      const droppedKey = dropped === undefined ? '' : `${dropped.protocolVersion}\n${dropped.id ?? ''}`;
      const current = replacements.get(key);
      if (current?.dropped === droppedKey) return current.session;
      const entry = { dropped: droppedKey, session: open() };
      replacements.set(key, entry);
      entry.session.catch(() => {
        if (replacements.get(key) === entry) replacements.delete(key);
      });
      return entry.session;
    },
  };
}

function storedSession(row: Row & { protocolVersion: string }): McpSession {
  return row.sessionId === null ? { protocolVersion: row.protocolVersion } : { id: row.sessionId, protocolVersion: row.protocolVersion };
}

/**
 * What the calls of one request on one connection row share (a reply's parallel tool calls): one
 * client, so one session and at most one handshake at a time, and the session writes,
 * in turn. Keyed by the row object, which each request reads for itself, so nothing is shared
 * across requests and an entry goes with its row.
 */
interface SharedConnection {
  client: Promise<McpClient>;
  /** The last session write: the next waits for it, so the writes of one request never race. */
  kept: Promise<void>;
}

const shared = new WeakMap<Row, SharedConnection>();

function sharedConnection(deps: McpDeps, agent: Agent, row: Row, auth: McpAuth | undefined): SharedConnection {
  let entry = shared.get(row);
  if (entry === undefined) {
    const created: SharedConnection = { client: connectedClient(deps, agent, row, auth), kept: Promise.resolve() };
    // A refusal (409, the policy) or a failed credential read is not kept: a later call tries again.
    void created.client.catch(() => {
      if (shared.get(row) === created) shared.delete(row);
    });
    shared.set(row, created);
    entry = created;
  }
  return entry;
}

/**
 * Runs `use` with the connection's client (with `auth` when the caller opened it) and keeps the
 * session it ends with, in the database and in `row`; tool-server failures become our errors.
 * Calls on the same `row` object share the client (see `SharedConnection`).
 */
export async function withConnection<T>(
  deps: McpDeps,
  agent: Agent,
  row: Row,
  use: (client: McpClient) => Promise<T>,
  auth?: McpAuth,
): Promise<T> {
  const entry = sharedConnection(deps, agent, row, auth);
  const client = await entry.client;
  try {
    return await use(client);
  } catch (err) {
    if (err instanceof McpError) throw toolServerError(err, 'use');
    throw err;
  } finally {
    entry.kept = entry.kept.then(() => keepSession(deps, row, client.session()));
    await entry.kept;
  }
}

/**
 * Stores the session when it changed, only over the one this request started from: a newer
 * session another request stored (or a new credential's cleared one) is never overwritten. One
 * statement over HTTP, no pool: a streamed reply still calls tools after its request's pool was
 * ended. Best effort: a lost write only costs the next call a handshake.
 */
async function keepSession(deps: McpDeps, row: Row, session: McpSession | undefined): Promise<void> {
  const sessionId = session?.id ?? null;
  const protocolVersion = session?.protocolVersion ?? null;
  if (sessionId === row.sessionId && protocolVersion === row.protocolVersion) return;
  try {
    const { rowCount } = await deps.db.sql.query(
      `UPDATE gateway.mcp_connections SET session_id = $2, protocol_version = $3
       WHERE id = $1 AND session_id IS NOT DISTINCT FROM $4 AND protocol_version IS NOT DISTINCT FROM $5`,
      [row.id, sessionId, protocolVersion, row.sessionId, row.protocolVersion],
    );
    if (rowCount !== 1) return; // another request's session stands
    // A caller that reuses the row (a reply's later calls) goes on from the kept session.
    row.sessionId = sessionId;
    row.protocolVersion = protocolVersion;
  } catch {
    // the next call re-initialises
  }
}

/**
 * A client to end the connection's session with, taken before the connection and its credential
 * are deleted; its `close()` sends the DELETE under the client's short close deadline, never a
 * second full timeout. Undefined when there is no session, or when the connection is not the
 * current owner's to use (another wallet's credential is never sent).
 */
export async function sessionToEnd(deps: McpDeps, agent: Agent, row: Row): Promise<McpClient | undefined> {
  if (row.sessionId === null) return undefined;
  try {
    return await connectedClient(deps, agent, row);
  } catch {
    return undefined; // not ours to use, or refused by the policy in force: the server expires it
  }
}
