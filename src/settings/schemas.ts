/**
 * The shapes of LLM settings and prompt templates, in a module with no worker code
 * (zod, the provider list and the limits schema only): the routes document them, the client's
 * types derive from them, and the CLI validates its flags with the very same rules before it
 * sends anything.
 */
import { z } from '@hono/zod-openapi';
import { UsageLimitsInputSchema, UsageLimitsSchema } from '../usage/limits-schemas';
import { LLM_PROVIDERS } from './llm-base-url';
import { AgentPricingSchema } from './pricing';

/** Component `AgentAccess`: what the owner lets delegates and renters do (see docs/security.md). */
export const AgentAccessSchema = z
  .object({
    delegates: z.enum(['none', 'use', 'admin']).openapi({
      example: 'use',
      description:
        "The owner's delegates in delegate.xyz v2 (full rights or the right `agent-gateway`; the wallet, this collection or this token): " +
        '`none`; `use`: replies, chat, memory read, search and append, the MCP server and A2A; `admin`: also LLM settings ' +
        '(never `access`), prompt templates, tool servers, agent keys and the profile. Secrets are never shown to anyone.',
    }),
    renters: z.enum(['none', 'use']).openapi({
      example: 'use',
      description: "The token's ERC-4907 user while the rental runs (by the chain's latest block time): `none` or `use`",
    }),
  })
  .strict()
  .openapi('AgentAccess');

/** Component `LlmSettings`: what GET and POST answer; never the key. */
export const LlmSettingsSchema = z
  .object({
    provider: z.string().openapi({ example: 'openai' }),
    model: z.string().openapi({ example: 'gpt-4.1-mini' }),
    temperature: z.number().openapi({ example: 0.3 }),
    maxTokens: z.number().int().openapi({ example: 4096 }),
    baseUrl: z.string().nullable().openapi({
      example: 'https://api.groq.com/openai/v1',
      description: "The API's base URL; null: the provider's own",
    }),
    apiKeySet: z.boolean().openapi({
      description: "Whether an API key entered by the agent's current owner is stored (in the vault). The key is never returned.",
    }),
    credential: z.enum(['set', 'reenter_required', 'none']).openapi({
      description:
        "`none`: no API key is stored; `set`: the current owner's key is stored; `reenter_required`: the stored " +
        'key was entered by an earlier owner of the agent (or before owners were recorded) and is never used ' +
        'for you, or a key is needed again because the provider or `baseUrl` changed since it was entered (the ' +
        'change dropped it; or it was stored before keys were bound to them): POST the settings with your own ' +
        '`apiKey` (or `null` for none).',
      example: 'set',
    }),
    limits: UsageLimitsSchema.openapi({ description: "The agent's daily token limit, over all its credentials" }),
    summaries: z.boolean().openapi({
      example: true,
      description:
        "Whether a reply that had to leave a context's older messages out has the agent's model summarise them afterwards, and sends the context's summary (GET …/context/{key}/summary) before the messages after it",
    }),
    access: AgentAccessSchema.openapi({ description: 'What delegates and renters may do (default `use` and `use`)' }),
    pricing: z
      .object({ askUsd: z.string().openapi({ example: '0.01' }), memoryTools: z.boolean() })
      .nullable()
      .openapi({ description: 'What a stranger pays per reply of POST …/paid/ask (USDC to the current owner); null: no paid replies' }),
    updatedAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
  })
  .openapi('LlmSettings');

/** Component `LlmSettingsInput`: the body of POST …/llm/settings (the CLI's `settings set` checks its flags with it). */
export const LlmSettingsInputSchema = z
  .object({
    provider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'provider must be a lower-case name such as openai or anthropic')
      .openapi({
        example: 'openai',
        description: `Replies run on ${LLM_PROVIDERS.join(', ')} (other names are stored, and a reply answers 409 \`llm_provider_unavailable\`)`,
      }),
    model: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\x21-\x7E]+$/, 'model must be visible ASCII without spaces')
      .openapi({ example: 'gpt-4.1-mini' }),
    temperature: z.number().min(0).max(2).openapi({ example: 0.3 }),
    maxTokens: z.number().int().min(1).openapi({ example: 4096, description: 'At most TOKEN__MAX_TOKENS_PER_REQUEST (default 100000)' }),
    baseUrl: z
      .string()
      .max(2_048)
      .nullable()
      .optional()
      .openapi({
        example: 'https://api.groq.com/openai/v1',
        description:
          'The API base URL: required for openai-compatible (Chat Completions at `POST {baseUrl}/chat/completions`, ' +
          'the key as `Authorization: Bearer`), optional for openai and anthropic. Passes the outbound policy like ' +
          'a tool-server URL (https, a public host name); saving never contacts the provider.',
      }),
    apiKey: z.string().min(1).max(4_096).nullable().optional().openapi({
      description:
        'The provider API key, stored encrypted in the vault and never returned, bound to the provider and `baseUrl` saved with it. Omit to keep the stored key while they stay the same (a change of either drops it, and replies wait for a new key); null removes it (none needed).',
      example: 'sk-...',
    }),
    limits: UsageLimitsInputSchema.optional().openapi({
      description:
        "The agent's daily token limit over all its credentials (agent keys have their own as well). Omit to keep the stored limits; `{}` or `tokensPerDay: null` for none.",
    }),
    summaries: z
      .boolean()
      .optional()
      .openapi({
        example: true,
        description:
          'Summaries of what replies leave out (default true): after a reply that had to leave older messages out, ' +
          'the same model and key summarise them (one more model call, counted in usage), and the next reply sends ' +
          'the summary instead. false: none written, and a stored one is not sent. Omit to keep the current choice.',
      }),
    access: AgentAccessSchema.optional().openapi({
      description:
        "What the owner's delegates and the token's renter may do. Omit to keep the stored choice (default `use` and `use`); " +
        'only the owner may send it (403 `not_owner` for a delegate).',
    }),
    pricing: AgentPricingSchema.nullable()
      .optional()
      .openapi({
        description:
          'Paid replies: anyone may then ask the agent with POST …/paid/ask and pay `askUsd` in USDC (x402) to whoever owns the agent at that ' +
          "moment; the replies run on the agent's model key. Omit to keep the stored price; null ends paid replies. Only the owner may send it " +
          '(403 `not_owner` for a delegate).',
      }),
  })
  .openapi('LlmSettingsInput');

/** A prompt template's key, in the path. */
export const TemplateKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9._\-:@]{1,128}$/, 'key must be 1..128 characters of A-Z a-z 0-9 . _ - : @')
  .openapi({ param: { name: 'key', in: 'path' }, example: 'system-default' });

export const PromptTemplateSchema = z
  .object({
    key: z.string(),
    template: z.string(),
    description: z.string().nullable(),
    updatedAt: z.string(),
  })
  .openapi('PromptTemplate');

/** Component `PromptTemplateInput` (the CLI's `templates set` checks the text with it). */
export const PromptTemplateInputSchema = z
  .object({
    template: z
      .string()
      .min(1)
      .max(65_536)
      .refine((t) => !t.includes('\u0000') && t.isWellFormed(), 'template must be well-formed text without NUL')
      .openapi({ example: 'You are a helpful agent for {{customer}}.' }),
    description: z.string().max(1_024).nullable().optional().openapi({ example: 'Default system prompt' }),
  })
  .openapi('PromptTemplateInput');

/** One template in the list: its key, description and size, not its text (GET it by key). */
export const PromptTemplateSummarySchema = z
  .object({
    key: z.string().openapi({ example: 'system-default' }),
    description: z.string().nullable().openapi({ example: 'Default system prompt' }),
    characters: z.number().int().openapi({ example: 42, description: "The template's length in characters (Unicode code points)" }),
    updatedAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
  })
  .openapi('PromptTemplateSummary');

export const PromptTemplatePageSchema = z
  .object({
    templates: z.array(PromptTemplateSummarySchema),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last page' }),
  })
  .openapi('PromptTemplatePage');
