/** `agent-gateway usage [--from DAY] [--to DAY] [--group-by day|credential|context] [--json]`: what the agent's model calls used. */
import type { UsageGroup, UsageQuery, UsageReport, UsageTotals } from '../client/types';
import { isUtcDay } from '../usage/day';
import { type Command, type OptionValues, stringValue } from './command';
import { alignedTable, checksummed, UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const GROUP_BYS = ['day', 'credential', 'context'] as const;
const COLUMNS = ['input', 'output', 'cached', 'model calls', 'tool calls'] as const;

export const usageCommand: Command = {
  path: ['usage'],
  usage: 'agent-gateway usage [--from DAY] [--to DAY] [--group-by day|credential|context] [--json]',
  help: `Shows what the agent's model calls used, exactly as the providers reported it: input,
output and cached input tokens, model calls and tool calls, over UTC days --from .. --to (both
included; default today), one row per day (or credential, or context) with usage, then the
totals. Credentials are wallet:0x… (a wallet's login, checksummed) or key:ID (an agent key).

model calls  the calls to the agent's model that answered: each step of a reply (the reply
             routes, chat, OpenAI clients, an MCP client's ask) and each summary
tool calls   the tool calls the model asked for in those replies, one per call in its answers,
             also a call that did not run (over a reply's bounds, or of a tool the agent does
             not have). Calls no model asked for (agent-gateway tools call, an MCP client's
             tools/call) are not usage: agent-gateway audit lists every call that ran, those
             too, one entry each, so its tool.call entries can outnumber this column.

Options:
  --from DAY       first UTC day, YYYY-MM-DD (default: --to)
  --to DAY         last UTC day, YYYY-MM-DD (default: today); at most 366 days in all
  --group-by BY    day (default), credential or context
  --json           JSON lines: one object per group, then {"totals": {...}, "from", "to"}

Needs the owner's login (agent-gateway login; an agent key cannot read usage) and the agent
(--collection, --token-id).`,
  options: { from: { type: 'string' }, to: { type: 'string' }, 'group-by': { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const query = usageQuery(values);
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    let report: UsageReport;
    try {
      report = await agent.getUsage(query);
    } catch (err) {
      gatewayFailure(err, 'reading usage');
    }
    if (values.json === true) {
      for (const group of report.groups) io.out(JSON.stringify(group));
      io.out(JSON.stringify({ totals: report.totals, from: report.from, to: report.to }));
    } else {
      for (const line of usageTable(report)) io.out(line);
    }
    const more = report.truncated ? `; only the ${report.groups.length} groups with the most tokens are listed` : '';
    io.err(`usage: ${report.from} .. ${report.to} (UTC), ${report.groups.length} ${groupNoun(report.groupBy)} with usage${more}`);
    return 0;
  },
};

/** The query of the options; a bad day or --group-by is a usage error before any request. */
export function usageQuery(values: OptionValues): UsageQuery {
  const from = stringValue(values, 'from');
  const to = stringValue(values, 'to');
  for (const [name, day] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (day !== undefined && !isUtcDay(day)) throw new UsageError(`--${name} must be a UTC day written YYYY-MM-DD`);
  }
  const groupBy = stringValue(values, 'group-by') ?? 'day';
  if (!(GROUP_BYS as readonly string[]).includes(groupBy)) throw new UsageError(`--group-by must be one of ${GROUP_BYS.join(', ')}`);
  return { from, to, groupBy: groupBy as UsageQuery['groupBy'] };
}

const groupNoun = (by: UsageReport['groupBy']) => (by === 'day' ? 'days' : by === 'credential' ? 'credentials' : 'contexts');
/** A credential `wallet:0x…` with its address checksummed, as `whoami` prints it. */
const credentialText = (credential: string) =>
  credential.startsWith('wallet:') ? `wallet:${checksummed(credential.slice(7))}` : credential;
const groupKey = (group: UsageGroup) =>
  group.day ?? (group.credential ? credentialText(group.credential) : undefined) ?? group.contextKey ?? '';
const numbers = (t: UsageTotals) => [t.inputTokens, t.outputTokens, t.cachedInputTokens, t.modelCalls, t.toolCalls].map(String);

/**
 * The report as aligned lines: a header, a row per group, and the totals; a `paid USD` column when
 * strangers paid for replies in the range (per day with --group-by day, else in the total only).
 */
export function usageTable(report: UsageReport): string[] {
  const paid = report.totals.paidUsd !== '0';
  const columns = paid ? [...COLUMNS, 'paid USD'] : [...COLUMNS];
  const paidCell = (value: string | undefined) => (paid ? [value ?? '-'] : []);
  const rows = [
    [report.groupBy, ...columns],
    ...report.groups.map((g) => [groupKey(g), ...numbers(g), ...paidCell(g.paidUsd)]),
    ['total', ...numbers(report.totals), ...paidCell(report.totals.paidUsd)],
  ];
  return alignedTable(rows, new Set(columns.map((_, i) => i + 1)));
}
