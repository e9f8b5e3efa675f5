import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { AgentParamsSchema } from '../identity/identity';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import { UsageLimitsInputSchema, UsageLimitsSchema } from '../usage/schemas';
import { MAX_TOOL_ENTRIES, toolEntryProblem } from '../tools/tool-entry';
import { KEY_SCOPES, KeyScopeSchema } from './scopes';

/** A key's tool allowlist: 1..100 entries, each a built-in's name, `<connectionId>/<name>` or a tool's name alone (src/tools/tool-entry.ts). */
const KeyToolsSchema = z
  .array(
    z.string().superRefine((entry, ctx) => {
      const problem = toolEntryProblem(entry);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .min(1)
  .max(MAX_TOOL_ENTRIES)
  .openapi({ example: ['ask', 'memory_search', '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21/search_issues'] });

const TOOLS_DESCRIPTION =
  "Scope `mcp` only: the tools this key may list and call on the agent's MCP server and have called for it in a reply (POST …/reply, chat completions, `ask`); without it, every tool. " +
  'Each entry names a tool by where it comes from and its own name, never by the name it is offered under: a built-in by its name (`ask`, `memory_search`, `memory_read`, `memory_append`); ' +
  "one tool server's tool as `<connectionId>/<name>` (the connection's id from GET …/mcp/connections, the tool's own name on that server); any other name alone: a tool of that own name on any of the agent's tool servers. " +
  "A built-in's name alone never reaches a tool server's tool of that name, and a renamed tool's offered name (`<connection>_<name>`) is not its own name. An entry is 1-237 characters without control characters.";

/** Longest lifetime a key may be given: one year. Without `expiresInSeconds` a key lives until revoked. */
export const MAX_KEY_LIFETIME_SECONDS = 31_536_000;

const KeyIdSchema = z.string().openapi({ example: '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21' });

const NewAgentKeySchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(100)
      .refine((n) => n.isWellFormed() && !/\p{Cc}/u.test(n), 'name must be text without control characters')
      .openapi({ example: 'nightly hydrate', description: 'What the key is for, as shown in the list' }),
    scopes: z
      .array(KeyScopeSchema)
      .min(1)
      .max(KEY_SCOPES.length)
      .openapi({ example: ['contexts:write'] }),
    tools: KeyToolsSchema.optional().openapi({ description: TOOLS_DESCRIPTION }),
    expiresInSeconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_KEY_LIFETIME_SECONDS)
      .optional()
      .openapi({ example: 2_592_000, description: 'Lifetime, 60 s .. 1 year; without it the key lives until revoked' }),
    limits: UsageLimitsInputSchema.optional().openapi({
      description: "This key's own daily token limit (its usage only; the agent's limit in LLM settings applies as well)",
    }),
  })
  .strict()
  .refine((k) => k.tools === undefined || k.scopes.includes('mcp'), { message: '`tools` needs the scope `mcp`', path: ['tools'] })
  .openapi('NewAgentKey');

const CreatedAgentKeySchema = z
  .object({
    id: KeyIdSchema,
    key: z.string().openapi({
      example: 'agk_3xq7m2k5c4v6b7n8p2r3s4t5u6v7w2x3',
      description: 'The key: shown here once, never again (only its SHA-256 is stored). Send it as `Authorization: Bearer <key>`.',
    }),
    name: z.string(),
    scopes: z.array(KeyScopeSchema),
    tools: z.array(z.string()).nullable().openapi({ description: 'The tool allowlist, entries as given at creation; null: every tool' }),
    createdAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
    expiresAt: z.string().nullable().openapi({ example: '2026-12-22T07:30:00.000Z' }),
    limits: UsageLimitsSchema,
  })
  .openapi('CreatedAgentKey');

const AgentKeySchema = z
  .object({
    id: KeyIdSchema,
    name: z.string(),
    scopes: z.array(KeyScopeSchema),
    tools: z.array(z.string()).nullable().openapi({ description: 'The tool allowlist, entries as given at creation; null: every tool' }),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().openapi({ description: 'Recorded off the request path: up to a minute behind' }),
    useCount: z.number().int().openapi({ description: 'Requests that passed every gate; a lower bound' }),
    limits: UsageLimitsSchema,
  })
  .openapi('AgentKey');

const adminOnly =
  "Only the owner's wallet token manages keys: an agent key here is 403 `key_not_allowed`. Keys of an earlier owner of the agent are revoked whenever its current owner manages keys.";

export const createAgentKey = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/keys`,
  operationId: 'createAgentKey',
  tags: ['Agent keys'],
  summary: 'Create an agent key for automation',
  description: `A scoped, revocable credential for a pipeline or a chat bridge, acting for the calling wallet on this agent of this deployment only, and only while that wallet owns the agent. The key is in this answer only. ${adminOnly}`,
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(NewAgentKeySchema) },
  responses: {
    200: jsonResponse('The key, shown once', CreatedAgentKeySchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (name, scopes, `tools` (given without the scope `mcp`, or an entry that is not a tool name or `<connectionId>/<name>`), lifetime of 60 s .. 1 year, `limits.tokensPerDay` not 1 .. 10^12, or a bad path), `agent_key_limit` (100 live keys: revoke one first)',
    ),
  },
});

export const listAgentKeys = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/keys`,
  operationId: 'listAgentKeys',
  tags: ['Agent keys'],
  summary: "List the agent's keys",
  description: `Live keys (not revoked; expired ones show their \`expiresAt\`), oldest first: never the key. ${adminOnly}`,
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse('The keys', z.object({ keys: z.array(AgentKeySchema) }).openapi('AgentKeys')),
    ...agentRoute.errors,
  },
});

export const revokeAgentKey = createRoute({
  method: 'delete',
  path: `${AGENT_PATH}/keys/{id}`,
  operationId: 'revokeAgentKey',
  tags: ['Agent keys'],
  summary: 'Revoke an agent key',
  description: `Revokes it at once: the very next request with it is 401 \`key_revoked\`. Revoking it again is 404. ${adminOnly}`,
  security: agentRoute.security,
  request: { params: AgentParamsSchema.extend({ id: KeyIdSchema.max(64).openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: jsonResponse(
      'Revoked',
      z.object({ id: KeyIdSchema, revokedAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }) }).openapi('AgentKeyRevoked'),
    ),
    ...agentRoute.errors,
    404: errorResponse('`agent_key_not_found` (no live key with this id on this agent), or `agent_not_found`'),
  },
});
