/** `agent-gateway audit`: the agent's audit trail, newest first, with the owner's login. */
import type { AuditEntry } from '../client/types';
import { stringValue, type Command } from './command';
import { UsageError } from './output';
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

function actorText(actor: AuditEntry['actor']): string {
  return 'wallet' in actor ? actor.wallet : `key:${actor.keyId}`;
}

export const auditCommand: Command = {
  path: ['audit'],
  usage: 'agent-gateway audit [--limit N] [--json]',
  help: `Prints the agent's audit trail, newest first: one line per administrative change (LLM
settings, prompt templates, database setup, tool servers and their credentials, agent keys) and per
tool call (direct or in a reply), kept 90 days. Columns: id, time, actor (wallet, or key:ID),
action, target, outcome (ok or the error code), duration in ms (tool calls), arguments SHA-256
(tool calls; never the arguments themselves).

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
    for (const e of entries) {
      io.out(
        [e.id, e.at, actorText(e.actor), e.action, targetText(e.target), e.outcome, e.durationMs ?? '-', e.argumentsSha256 ?? '-'].join(
          '\t',
        ),
      );
    }
    io.err(`audit: ${entries.length} entries, newest first (id, time, actor, action, target, outcome, ms, arguments sha256)`);
    return 0;
  },
};
