import { createRoute } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { AgentParamsSchema } from '../identity/identity';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse, PageQuerySchema } from '../http/openapi';
import {
  LlmSettingsInputSchema,
  LlmSettingsSchema,
  PromptTemplateInputSchema,
  PromptTemplatePageSchema,
  PromptTemplateSchema,
  TemplateKeySchema,
} from './schemas';

export const getLlmSettings = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/llm/settings`,
  operationId: 'getLlmSettings',
  tags: ['Settings'],
  summary: "The agent's LLM settings",
  description:
    "Provider, model, temperature, max tokens, and whether an API key is stored; never the key. After the agent changes hands, an earlier owner's key shows as `credential: reenter_required`.",
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse('The settings', LlmSettingsSchema),
    ...agentRoute.errors,
    404: errorResponse('`llm_settings_not_found` (never set), or `agent_not_found`'),
  },
});

export const saveLlmSettings = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/llm/settings`,
  operationId: 'saveLlmSettings',
  tags: ['Settings'],
  summary: "Set the agent's LLM settings",
  description:
    'Replaces the settings. `maxTokens` above TOKEN__MAX_TOKENS_PER_REQUEST is rejected. A new `apiKey` is ' +
    "encrypted into the vault, bound to the caller (the agent's current owner), and the previous one destroyed; " +
    'this is how a new owner enters their own key after a transfer. Without `apiKey` the stored key is kept, ' +
    'still bound to whoever entered it, while `provider` and `baseUrl` stay those it was entered for: a change ' +
    'of either destroys it (a key never follows another `baseUrl`), and replies answer 409 `credential_reentry_required` ' +
    'until a key (or `apiKey: null`) is entered. A delegate with admin leave sees `baseUrl` as its origin only (its path ' +
    'or query may carry a key); saving that origin back keeps the stored URL, another value replaces it. `access` and ' +
    "`limits` are the owner's: a delegate's save that changes either is 403 `not_owner` (leave them out to keep them).",
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(LlmSettingsInputSchema) },
  responses: {
    200: jsonResponse('The saved settings', LlmSettingsSchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (a field out of its rules, maxTokens over TOKEN__MAX_TOKENS_PER_REQUEST), `invalid_llm_base_url` (baseUrl refused by the outbound policy, or missing for openai-compatible)',
    ),
  },
});

const TemplateParams = AgentParamsSchema.extend({ key: TemplateKeySchema });

export const getPromptTemplate = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/prompt-template/{key}`,
  operationId: 'getPromptTemplate',
  tags: ['Settings'],
  summary: 'A prompt template by key',
  description: 'The template stored under `key` for this agent; 404 `prompt_template_not_found` when there is none.',
  security: agentRoute.security,
  request: { params: TemplateParams },
  responses: {
    200: jsonResponse('The template', PromptTemplateSchema),
    ...agentRoute.errors,
    404: errorResponse('`prompt_template_not_found`, or `agent_not_found`'),
  },
});

export const savePromptTemplate = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/prompt-template/{key}`,
  operationId: 'savePromptTemplate',
  tags: ['Settings'],
  summary: 'Create or replace a prompt template',
  description:
    'Stores `template` (up to 64 KiB of text) and an optional `description` under `key` (1..128 characters of A-Z a-z 0-9 . _ - : @), replacing what was there.',
  security: agentRoute.security,
  request: { params: TemplateParams, body: jsonBody(PromptTemplateInputSchema) },
  responses: { 200: jsonResponse('The saved template', PromptTemplateSchema), ...agentRoute.errors },
});

export const listPromptTemplates = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/prompt-templates`,
  operationId: 'listPromptTemplates',
  tags: ['Settings'],
  summary: "The agent's prompt templates",
  description:
    'Keys in byte order with their description, length and last change, `limit` at a time (default 50, at most 100); pass `nextCursor` as `cursor` to read on. Not the texts: GET …/prompt-template/{key} for one. An agent without templates has an empty list.',
  security: agentRoute.security,
  request: { params: agentRoute.params, query: PageQuerySchema },
  responses: {
    200: jsonResponse('A page of templates', PromptTemplatePageSchema),
    ...agentRoute.errors,
    400: errorResponse('`validation_failed`: a bad path, `limit` outside 1..100, or a `cursor` this endpoint did not issue'),
  },
});
