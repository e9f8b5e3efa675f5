/** `agent-gateway keys create|list|revoke`: the agent keys of an agent, with the owner's login. */
import type { AgentKeyScope } from '../client/types';
import { MAX_TOOL_ENTRIES, toolEntryProblem } from '../tools/tool-entry';
import { stringValue, type Command, type OptionValues } from './command';
import { UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const SCOPES: readonly AgentKeyScope[] = ['contexts:read', 'contexts:write', 'reply', 'mcp'];
const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `--expires-in 30d` (s, m, h or d; a bare number is seconds) as seconds; undefined: never expires. */
export function expiresInSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^([1-9]\d{0,8})([smhd]?)$/.exec(value);
  if (!match) throw new UsageError('--expires-in must be a whole number with an optional unit s, m, h or d, e.g. 30d');
  return Number(match[1]) * (UNITS[match[2] || 's'] ?? 1);
}

function scopesOf(values: OptionValues): AgentKeyScope[] {
  const given = values.scope;
  const list = (Array.isArray(given) ? given : typeof given === 'string' ? [given] : []).flatMap((s) => String(s).split(','));
  if (list.length === 0) throw new UsageError(`--scope is required: one or more of ${SCOPES.join(', ')}`);
  for (const scope of list) {
    if (!SCOPES.includes(scope as AgentKeyScope)) throw new UsageError(`unknown scope ${JSON.stringify(scope)}: use ${SCOPES.join(', ')}`);
  }
  return list as AgentKeyScope[];
}

/** `--tools a,b`: the key's tool allowlist, entries as the gateway reads them (src/tools/tool-entry.ts); undefined: every tool. */
export function toolsOf(value: string | undefined, scopes: readonly AgentKeyScope[]): string[] | undefined {
  if (value === undefined) return undefined;
  const tools = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tools.length === 0 || tools.length > MAX_TOOL_ENTRIES)
    throw new UsageError(`--tools takes 1 to ${MAX_TOOL_ENTRIES} comma-separated tool entries`);
  for (const tool of tools) {
    const problem = toolEntryProblem(tool);
    if (problem !== null) throw new UsageError(problem);
  }
  if (!scopes.includes('mcp')) throw new UsageError('--tools needs --scope mcp');
  return tools;
}

const NEEDS = "Needs the owner's login (agent-gateway login; an agent key cannot manage keys) and the agent (--collection, --token-id).";

export const keysCreateCommand: Command = {
  path: ['keys', 'create'],
  usage:
    'agent-gateway keys create --name NAME --scope SCOPE [--scope SCOPE] [--tools a,b] [--expires-in 30d] [--tokens-per-day N] [--json]',
  help: `Creates an agent key for automation and prints it once on stdout (nothing else goes to
stdout), so KEY=$(agent-gateway keys create ...) captures it. Store it as a secret: it is never
shown again. It works on this agent only, within its scopes, while your wallet owns the agent.

Options:
  --name NAME        what the key is for, shown in the list (required)
  --scope SCOPE      contexts:read, contexts:write, reply or mcp; repeat or comma-separate (required)
  --tools a,b        scope mcp: the tools the key may list and call on the agent's MCP server and
                     have called for it in a reply; default: all. Each entry is a built-in's name
                     (ask, memory_search, memory_read, memory_append), CONNECTION_ID/NAME for one
                     tool server's tool by its own name (ids: agent-gateway tools list), or a tool's
                     own name alone (on any of the agent's tool servers; never a built-in's name)
  --expires-in TIME  lifetime: seconds, or with a unit s, m, h, d (60 s .. 365 d); default: none
  --tokens-per-day N the key's own daily limit of input + output tokens (UTC days); default: none
  --json             print { id, key, name, scopes, tools, createdAt, expiresAt, limits } instead of the key

${NEEDS}`,
  options: {
    name: { type: 'string' },
    scope: { type: 'string', multiple: true },
    tools: { type: 'string' },
    'expires-in': { type: 'string' },
    'tokens-per-day': { type: 'string' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const name = stringValue(values, 'name');
    if (!name) throw new UsageError('--name is required');
    const scopes = scopesOf(values);
    const tools = toolsOf(stringValue(values, 'tools'), scopes);
    const lifetime = expiresInSeconds(stringValue(values, 'expires-in'));
    const tokensPerDay = stringValue(values, 'tokens-per-day');
    if (tokensPerDay !== undefined && !/^[1-9]\d{0,11}$/.test(tokensPerDay)) {
      throw new UsageError('--tokens-per-day must be a whole number from 1 to 999999999999');
    }
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const created = await agent.createAgentKey({
        name,
        scopes,
        ...(tools === undefined ? {} : { tools }),
        ...(lifetime === undefined ? {} : { expiresInSeconds: lifetime }),
        ...(tokensPerDay === undefined ? {} : { limits: { tokensPerDay: Number(tokensPerDay) } }),
      });
      // The one deliberate print of the key: unscrubbed, on stdout only.
      io.rawOut(values.json === true ? `${JSON.stringify(created, null, 2)}\n` : `${created.key}\n`);
      const limit = created.limits.tokensPerDay === null ? '' : `, at most ${created.limits.tokensPerDay} tokens a day`;
      const only = created.tools === null ? '' : `, tools ${created.tools.join(', ')}`;
      io.err(
        `keys create: key ${created.id} (${created.scopes.join(', ')}${only}), expires ${created.expiresAt ?? 'never'}${limit}; it is not shown again`,
      );
    } catch (err) {
      gatewayFailure(err, 'creating a key');
    }
    return 0;
  },
};

export const keysListCommand: Command = {
  path: ['keys', 'list'],
  usage: 'agent-gateway keys list [--json]',
  help: `Lists the agent's live keys: id, name, scopes, created, expires, last used, uses and the
key's daily token limit (never the key itself). Last used and uses are recorded off the request path: up to a minute behind.

Options:
  --json   the keys as a JSON array

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const { keys } = await agent.listAgentKeys();
      if (values.json === true) io.out(JSON.stringify(keys, null, 2));
      else {
        for (const k of keys) {
          io.out(
            [
              k.id,
              k.name,
              k.scopes.join(','),
              k.createdAt,
              k.expiresAt ?? 'never',
              k.lastUsedAt ?? 'unused',
              String(k.useCount),
              k.limits.tokensPerDay === null ? 'no limit' : String(k.limits.tokensPerDay),
            ].join('\t'),
          );
        }
        io.err(`keys list: ${keys.length} keys (id, name, scopes, created, expires, last used, uses, tokens a day)`);
      }
    } catch (err) {
      gatewayFailure(err, 'listing keys');
    }
    return 0;
  },
};

export const keysRevokeCommand: Command = {
  path: ['keys', 'revoke'],
  usage: 'agent-gateway keys revoke ID',
  help: `Revokes the key ID at once: the very next request with it is refused (401 key_revoked).

${NEEDS}`,
  options: {},
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const id = args[0]!;
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const revoked = await agent.revokeAgentKey(id);
      io.out(`revoked ${revoked.id} at ${revoked.revokedAt}`);
    } catch (err) {
      gatewayFailure(err, `revoking key ${id}`);
    }
    return 0;
  },
};
