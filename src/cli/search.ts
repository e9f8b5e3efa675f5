/** `agent-gateway search QUERY`: memory search across the agent's contexts (docs/memory.md). */
import type { MemorySearch, MemorySearchHit } from '../client/types';
import { ROLES } from '../contexts/rules';
import { type Command, type OptionValues, stringValue } from './command';
import { UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

/** Characters of a message shown in the table (the whole text is in --jsonl). */
const SHOWN_CHARS = 100;

export const searchCommand: Command = {
  path: ['search'],
  usage:
    'agent-gateway search QUERY [--context KEY]... [--prefix P] [--role R]... [--after T] [--before T] [--limit N] [--cursor C | --all] [--jsonl]',
  help: `Searches the agent's memory across its contexts, best hits first. QUERY is web-search
syntax: words (English stemming), "quoted phrases", or, -word to exclude; a term no message
matches in full text is looked for as written (part of an identifier: 2024-0042) or by similarity
(a misspelling). Several arguments are one query; put -- before one that starts with -.

Prints a table (score, context, id, role, created, the message cut to ${SHOWN_CHARS} characters)
and, on stderr, the cursor of the next page; --jsonl prints each hit whole as one JSON object:
{"contextKey", "id", "role", "message", "createdAt", "score"}.

Options:
  --context KEY   only this context (repeatable, up to 100; internal contexts only this way)
  --prefix P      only contexts whose key starts with P (literally)
  --role R        only messages of this role: user, assistant or system (repeatable)
  --after T       only messages stored after T (ISO 8601, exclusive)
  --before T      only messages stored before T (ISO 8601, exclusive)
  --limit N       hits per page, 1..100 (default 20)
  --cursor C      read on from the next-page cursor a previous run printed
  --all           every hit, following the cursor page by page
  --jsonl         one JSON object per hit instead of the table

Needs a login, or an agent key with contexts:read (AGENT_GATEWAY_API_KEY or --api-key-env
NAME), and the agent (--collection, --token-id).`,
  options: {
    context: { type: 'string', multiple: true },
    prefix: { type: 'string' },
    role: { type: 'string', multiple: true },
    after: { type: 'string' },
    before: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
    jsonl: { type: 'boolean' },
  },
  args: { min: 1, max: 100 },
  async run({ values, args, env, io }) {
    const request = searchRequest(args, values);
    const { agent } = await openAgent(values as GlobalValues, env, io);
    const print = (hit: MemorySearchHit) => io.out(values.jsonl === true ? JSON.stringify(hit) : tableRow(hit));
    let count = 0;
    try {
      for await (const page of agent.searchPages(request)) {
        page.hits.forEach(print);
        count += page.hits.length;
        if (values.all !== true) {
          io.err(page.nextCursor === null ? `search: ${count} hits, no more` : `search: ${count} hits; more: --cursor ${page.nextCursor}`);
          return 0;
        }
      }
    } catch (err) {
      gatewayFailure(err, 'searching');
    }
    io.err(`search: ${count} hits`);
    return 0;
  },
};

function listValue(values: OptionValues, name: string): string[] | undefined {
  const value = values[name];
  return Array.isArray(value) && value.length > 0 ? value.map(String) : undefined;
}

/** The request of the arguments; a bad --limit or --role is a usage error before any request. */
export function searchRequest(args: string[], values: OptionValues): MemorySearch {
  const query = args.join(' ').trim();
  if (!query) throw new UsageError('QUERY is empty');
  const limit = stringValue(values, 'limit');
  if (limit !== undefined && !/^(100|[1-9]\d?)$/.test(limit)) throw new UsageError('--limit must be a whole number from 1 to 100');
  const roles = listValue(values, 'role');
  for (const role of roles ?? []) {
    if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  }
  return {
    query,
    contextKeys: listValue(values, 'context'),
    contextPrefix: stringValue(values, 'prefix'),
    roles: roles as MemorySearch['roles'],
    after: stringValue(values, 'after'),
    before: stringValue(values, 'before'),
    limit: limit === undefined ? undefined : Number(limit),
    cursor: stringValue(values, 'cursor'),
  };
}

/** One hit as a table row: tab-separated, the message on one line and cut. */
function tableRow(hit: MemorySearchHit): string {
  const flat = hit.message.replace(/\s+/g, ' ').trim();
  const shown = flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS - 1)}…` : flat;
  return [hit.score.toFixed(4), hit.contextKey, String(hit.id), hit.role.padEnd(9), hit.createdAt, shown].join('\t');
}
