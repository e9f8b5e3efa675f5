/** `agent-gateway audit`: the agent's audit trail, newest first, with the owner's login. */
import type { AuditEntry } from '../client/types';
import { stringValue, type Command } from './command';
import { alignedTable, checksummed, UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

/** Entries one run prints at most. */
const MAX_LIMIT = 10_000;

function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  if (!/^[1-9]\d{0,4}$/.test(value) || Number(value) > MAX_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return Number(value);
}

/** `connectionId=…, tool=…`: the target's fields in a fixed order. */
function targetText(target: AuditEntry['target']): string {
  const parts = Object.entries(target).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join(',') : '-';
}

/** The wallet checksummed, as `whoami` prints it (the gateway stores and answers it in lower case). */
function actorText(actor: AuditEntry['actor']): string {
  return 'wallet' in actor ? checksummed(actor.wallet) : `key:${actor.keyId}`;
}

const HEADER = ['id', 'time', 'actor', 'action', 'target', 'outcome', 'ms', 'arguments sha256'];
/** The `ms` column, right-aligned. */
const NUMBERS = new Set([6]);

/** The entries as aligned lines under a header row. */
export function auditTable(entries: readonly AuditEntry[]): string[] {
  const rows = entries.map((e) => [
    String(e.id),
    e.at,
    actorText(e.actor),
    e.action,
    targetText(e.target),
    e.outcome,
    e.durationMs === null || e.durationMs === undefined ? '-' : String(e.durationMs),
    e.argumentsSha256 ?? '-',
  ]);
  return alignedTable([HEADER, ...rows], NUMBERS);
}

export const auditCommand: Command = {
  path: ['audit'],
  usage: 'agent-gateway audit [--limit N] [--json]',
  help: `Prints the agent's audit trail, newest first, kept 90 days: a header row, then one line
per administrative change (LLM settings, prompt templates, database setup, tool servers and their
credentials, agent keys, the profile, OAuth grants) and one tool.call line per tool call that ran,
whoever asked for it: the model in a reply (a tool server's tool or a built-in memory tool),
agent-gateway tools call, or an MCP client's tools/call of the agent's MCP server (ask, the
memory tools, the agent's tools). A call that did not run (over a reply's bounds, a tool the
agent does not have) has no line. agent-gateway usage counts only the calls the model asked for,
so this trail can list more tool calls than its "tool calls" column.

Columns: id, time, actor (the wallet checksummed, or key:ID), action, target, outcome (ok or the
error code), ms (tool calls: how long the call took), arguments sha256 (tool calls; never the
arguments themselves).

Options:
  --limit N   entries to print, 1..${MAX_LIMIT} (default 50)
  --json      the entries as a JSON array

Needs the owner's login (agent-gateway login; an agent key cannot read the trail) and the agent
(--collection, --token-id).`,
  options: { limit: { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const limit = limitOf(stringValue(values, 'limit'));
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    const entries: AuditEntry[] = [];
    try {
      for await (const entry of agent.audit({ limit: Math.min(limit, 100) })) {
        entries.push(entry);
        if (entries.length >= limit) break;
      }
    } catch (err) {
      gatewayFailure(err, 'reading the audit trail');
    }
    if (values.json === true) {
      io.out(JSON.stringify(entries, null, 2));
      return 0;
    }
    for (const line of auditTable(entries)) io.out(line);
    io.err(`audit: ${entries.length} entries, newest first`);
    return 0;
  },
};
