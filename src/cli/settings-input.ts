/**
 * `settings set`'s flags as the body of POST …/llm/settings: what is given replaces, what is not
 * keeps the agent's current value, and the result is checked with the route's own schema
 * (src/settings/schemas.ts) before anything is sent, so a flag out of its rules is a usage error
 * (exit 2) that names the flag. The API key is read from the environment variable `--key-env`
 * names, registered as a secret, and never printed.
 */
import { readFileSync } from 'node:fs';
import type { AgentAccess, AgentPricing, LlmSettings, LlmSettingsInput } from '../client/types';
import { PriceUsdSchema } from '../settings/pricing';
import { AgentAccessSchema, LlmSettingsInputSchema } from '../settings/schemas';
import { type OptionValues, stringValue } from './command';
import { devStackFile } from './gateway-url';
import { registerSecret, UsageError } from './output';

/** The flag of each field, for messages. */
const FLAG_OF: Record<string, string> = {
  provider: '--provider',
  model: '--model',
  temperature: '--temperature',
  maxTokens: '--max-tokens',
  baseUrl: '--llm-base-url',
  apiKey: '--key-env',
  limits: '--tokens-per-day',
  summaries: '--summaries',
  access: '--delegates/--renters',
  pricing: '--price',
};

const { temperature } = LlmSettingsInputSchema.shape;

/** The options of `settings set` (parseArgs). */
export const SETTINGS_SET_OPTIONS = {
  standin: { type: 'boolean' },
  provider: { type: 'string' },
  model: { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  'llm-base-url': { type: 'string' },
  'key-env': { type: 'string' },
  'no-key': { type: 'boolean' },
  'tokens-per-day': { type: 'string' },
  summaries: { type: 'string' },
  delegates: { type: 'string' },
  renters: { type: 'string' },
  price: { type: 'string' },
  'price-memory-tools': { type: 'boolean' },
  'no-price': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export const TEMPERATURE_RANGE = `${temperature.minValue ?? 0}..${temperature.maxValue ?? ''}`;

/** A number flag as a number (the schema then checks its range); UsageError when it is not one. */
function numberFlag(values: OptionValues, name: string): number | undefined {
  const raw = stringValue(values, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(raw.trim()))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(raw.slice(0, 40))}`);
  return Number(raw);
}

/** The stand-in model of a running `npm run dev` (its stack file's `llm`): dev only. */
export function devStandin(env: NodeJS.ProcessEnv): { provider: string; model: string; baseUrl: string } {
  const file = devStackFile(env);
  let llm: { provider?: unknown; model?: unknown; baseUrl?: unknown; standIn?: unknown } | null | undefined;
  try {
    llm = (JSON.parse(readFileSync(file, 'utf8')) as { llm?: typeof llm }).llm;
  } catch {
    throw new UsageError(`--standin: no running \`npm run dev\` found (no stack file ${file}); start it, or set DEV_DIR to its directory`);
  }
  if (llm?.standIn !== true || typeof llm.baseUrl !== 'string' || typeof llm.provider !== 'string' || typeof llm.model !== 'string') {
    throw new UsageError(`--standin: the local stack of ${file} runs no stand-in model (started with DEV_LLM=0?)`);
  }
  return { provider: llm.provider, model: llm.model, baseUrl: llm.baseUrl };
}

/** The API key from the variable --key-env names; null for --no-key; undefined: keep the stored one. */
function apiKeyOf(values: OptionValues, env: NodeJS.ProcessEnv): string | null | undefined {
  const name = stringValue(values, 'key-env');
  if (name !== undefined && values['no-key'] === true) throw new UsageError('--key-env and --no-key exclude each other');
  if (values['no-key'] === true) return null;
  if (name === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new UsageError(`--key-env takes the name of an environment variable, got ${JSON.stringify(name.slice(0, 60))}`);
  const key = env[name]?.trim();
  registerSecret(key);
  if (!key) throw new UsageError(`--key-env ${name}: the environment variable ${name} is not set (or empty)`);
  return key;
}

function summariesOf(values: OptionValues): boolean | undefined {
  const raw = stringValue(values, 'summaries');
  if (raw === undefined) return undefined;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new UsageError('--summaries takes on or off');
}

function limitsOf(values: OptionValues): LlmSettingsInput['limits'] {
  if (stringValue(values, 'tokens-per-day') === 'none') return { tokensPerDay: null };
  const perDay = numberFlag(values, 'tokens-per-day');
  return perDay === undefined ? undefined : { tokensPerDay: perDay };
}

/** `--delegates` and `--renters`: what the owner lets each do; one given, the other is kept. */
function accessOf(values: OptionValues): Partial<AgentAccess> | undefined {
  const access: Partial<AgentAccess> = {};
  const delegates = stringValue(values, 'delegates');
  const renters = stringValue(values, 'renters');
  if (delegates !== undefined) {
    const checked = AgentAccessSchema.shape.delegates.safeParse(delegates);
    if (!checked.success) throw new UsageError('--delegates takes none, use or admin');
    access.delegates = checked.data;
  }
  if (renters !== undefined) {
    const checked = AgentAccessSchema.shape.renters.safeParse(renters);
    if (!checked.success) throw new UsageError('--renters takes none or use');
    access.renters = checked.data;
  }
  return delegates === undefined && renters === undefined ? undefined : access;
}

/**
 * `--price USD [--price-memory-tools]` and `--no-price`: what a stranger pays per paid reply
 * (null: none); undefined when neither is given, so the gateway keeps the stored price.
 */
export function pricingOf(values: OptionValues): AgentPricing | null | undefined {
  const price = stringValue(values, 'price');
  const memoryTools = values['price-memory-tools'] === true;
  if (price !== undefined && values['no-price'] === true) throw new UsageError('--price and --no-price exclude each other');
  if (memoryTools && price === undefined)
    throw new UsageError(
      '--price-memory-tools goes with --price (give the price again; without the flag paid replies get no memory tools)',
    );
  if (values['no-price'] === true) return null;
  if (price === undefined) return undefined;
  const checked = PriceUsdSchema.safeParse(price.trim());
  if (!checked.success) throw new UsageError(`--price: ${checked.error.issues[0]?.message ?? 'not a price'}`);
  return { askUsd: checked.data, memoryTools };
}

type Given = Omit<Partial<LlmSettingsInput>, 'access'> & { access?: Partial<AgentAccess> };
const REQUIRED_AND_URL = ['provider', 'model', 'temperature', 'maxTokens', 'baseUrl'] as const;

/** A schema issue as a usage error that names the flag. */
function issueError(field: string, message: string): UsageError {
  return new UsageError(`${FLAG_OF[field] ?? field}: ${message}${field === 'temperature' ? ` (${TEMPERATURE_RANGE})` : ''}`);
}

/**
 * The fields the flags set, each checked with the route schema's rule for it: a wrong flag is a
 * usage error before any request. What is not given is absent. `--standin` gives the stand-in's
 * provider, model and base URL, temperature 0, 512 max tokens and no key (flags given win).
 */
export function givenSettings(values: OptionValues, env: NodeJS.ProcessEnv): Given {
  const standin = values.standin === true ? devStandin(env) : undefined;
  const rawUrl = stringValue(values, 'llm-base-url');
  const apiKey = apiKeyOf(values, env);
  const fields: Record<string, unknown> = {
    provider: stringValue(values, 'provider') ?? standin?.provider,
    model: stringValue(values, 'model') ?? standin?.model,
    temperature: numberFlag(values, 'temperature') ?? (standin ? 0 : undefined),
    maxTokens: numberFlag(values, 'max-tokens') ?? (standin ? 512 : undefined),
    baseUrl: rawUrl === 'none' ? null : (rawUrl ?? standin?.baseUrl),
    // The stand-in needs no key: say so, so an earlier key or an earlier owner's choice is not waited for.
    apiKey: apiKey !== undefined ? apiKey : standin ? null : undefined,
    limits: limitsOf(values),
    summaries: summariesOf(values),
  };
  const access = accessOf(values);
  const pricing = pricingOf(values);
  const shape: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } } }> =
    LlmSettingsInputSchema.shape;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) {
      delete fields[field];
      continue;
    }
    const checked = shape[field]!.safeParse(value);
    if (!checked.success) throw issueError(field, checked.error?.issues[0]?.message ?? 'not valid');
  }
  return { ...(fields as Given), ...(access ? { access } : {}), ...(pricing === undefined ? {} : { pricing }) };
}

/** Whether the flags give every field the route requires, and the base URL (then the current settings need not be read). */
export function namesEveryField(given: Given): boolean {
  const wholeAccess = given.access === undefined || (given.access.delegates !== undefined && given.access.renters !== undefined);
  return wholeAccess && REQUIRED_AND_URL.every((field) => given[field] !== undefined);
}

/**
 * The body to POST: the given fields over `current` (the agent's settings; null when never set).
 * The base URL is kept only while the provider stays the same; key, limits, summaries, access and
 * pricing not given are left out, so the gateway keeps them (access is the owner's alone to send: one of
 * its two levels given, the other is the current one).
 */
export function settingsInput(given: Given, current: LlmSettings | null): LlmSettingsInput {
  const provider = given.provider ?? current?.provider;
  const baseUrl = given.baseUrl !== undefined ? given.baseUrl : current && provider === current.provider ? current.baseUrl : undefined;
  const input: Record<string, unknown> = {
    provider,
    model: given.model ?? current?.model,
    temperature: given.temperature ?? current?.temperature,
    maxTokens: given.maxTokens ?? current?.maxTokens,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(given.apiKey === undefined ? {} : { apiKey: given.apiKey }),
    ...(given.limits === undefined ? {} : { limits: given.limits }),
    ...(given.summaries === undefined ? {} : { summaries: given.summaries }),
    ...(given.access === undefined ? {} : { access: { delegates: 'use', renters: 'use', ...current?.access, ...given.access } }),
    ...(given.pricing === undefined ? {} : { pricing: given.pricing }),
  };
  const checked = LlmSettingsInputSchema.safeParse(input);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    if (input[field] === undefined)
      throw new UsageError(`${FLAG_OF[field] ?? field} is required: the agent has no LLM settings yet to keep it from`);
    throw issueError(field, issue.message);
  }
  return checked.data;
}
