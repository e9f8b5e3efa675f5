/** `agent-gateway settings set|show`: the agent's LLM settings (docs/replies.md), never the key. */
import { GatewayError } from '../client/errors';
import type { AgentClient } from '../client/client';
import type { LlmSettings } from '../client/types';
import type { Command } from './command';
import { CliError, describeGatewayError, type Io } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';
import { givenSettings, namesEveryField, SETTINGS_SET_OPTIONS, settingsInput, TEMPERATURE_RANGE } from './settings-input';

const NEEDS =
  "Needs the owner's login (agent-gateway login; an agent key cannot read or set settings) and the agent (--collection, --token-id).";

/** The settings, or null when the agent has none yet (404 llm_settings_not_found). */
async function currentSettings(agent: AgentClient): Promise<LlmSettings | null> {
  try {
    return await agent.getLlmSettings();
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'llm_settings_not_found') return null;
    gatewayFailure(err, 'reading the settings');
  }
}

const KEY_STATE: Record<LlmSettings['credential'], string> = {
  set: 'set',
  none: 'none',
  reenter_required:
    'needed again (entered by an earlier owner, or the provider or base URL changed since): settings set --key-env NAME, or --no-key',
};

/** The price line: what a stranger pays per reply of POST …/paid/ask, or off. */
export function priceText(pricing: LlmSettings['pricing'] | undefined): string {
  if (!pricing) return 'off (no price)';
  return `${pricing.askUsd} USD in USDC to the owner, ${pricing.memoryTools ? 'with' : 'without'} the memory tools`;
}

function printSettings(io: Io, s: LlmSettings): void {
  io.out(`provider:        ${s.provider}`);
  io.out(`model:           ${s.model}`);
  io.out(`base URL:        ${s.baseUrl ?? "(the provider's own)"}`);
  io.out(`temperature:     ${s.temperature}`);
  io.out(`max tokens:      ${s.maxTokens}`);
  io.out(`API key:         ${KEY_STATE[s.credential]}`);
  io.out(`tokens per day:  ${s.limits.tokensPerDay ?? 'no limit'}`);
  io.out(`summaries:       ${s.summaries ? 'on' : 'off'}`);
  if (s.access) io.out(`access:          delegates ${s.access.delegates}, renters ${s.access.renters}`);
  io.out(`paid replies:    ${priceText(s.pricing)}`);
  io.out(`updated:         ${s.updatedAt}`);
}

export const settingsSetCommand: Command = {
  path: ['settings', 'set'],
  usage:
    'agent-gateway settings set [--standin] [--provider NAME] [--model NAME] [--temperature T] [--max-tokens N] [--llm-base-url URL|none] ' +
    '[--key-env NAME | --no-key] [--tokens-per-day N|none] [--summaries on|off] [--delegates none|use|admin] [--renters none|use] ' +
    '[--price USD [--price-memory-tools] | --no-price] [--json]',
  help: `Sets the model the agent answers with. Options not given keep the agent's current value (the
first time, --provider, --model, --temperature and --max-tokens are required); the gateway's own
rules check them before anything is sent. The API key is never given on the command line: name
the environment variable that holds it.

Options:
  --standin            the local stack's stand-in model (a running \`npm run dev\`; dev only): provider,
                       model and base URL from its stack file, temperature 0, 512 max tokens, no key;
                       a deterministic echo that calls a tool when asked, not a real model
  --provider NAME      openai, anthropic, openai-compatible or workers-ai
  --model NAME         the provider's model name, e.g. gpt-4.1-mini
  --temperature T      ${TEMPERATURE_RANGE}
  --max-tokens N       at most the deployment's TOKEN__MAX_TOKENS_PER_REQUEST (default 100000)
  --llm-base-url URL   the provider's API base URL (required for openai-compatible); https and a
                       public host (http://127.0.0.1:PORT on the local stack); none: the provider's
                       own. Kept while the provider stays the same.
  --key-env NAME       read the provider's API key from the environment variable NAME (e.g.
                       OPENAI_API_KEY); stored encrypted, never shown. Omitted: the stored key is
                       kept while the provider and base URL stay the same (a change drops it)
  --no-key             remove the stored key (a provider that needs none)
  --tokens-per-day N   the agent's daily limit of input + output tokens (UTC days); none: no limit
  --summaries on|off   summarise what replies leave out of long contexts (default on)
  --delegates LEVEL    what the owner's delegates (delegate.xyz) may do: none, use (replies, chat,
                       memory, MCP, A2A; the default) or admin (also settings, templates, tool
                       servers, keys, the profile); the owner's login only
  --renters LEVEL      what the token's ERC-4907 renter may do: none or use (the default); the
                       owner's login only
  --price USD          paid replies: anyone may ask the agent (agent-gateway pay ask, POST …/paid/ask)
                       and pay this many US dollars in USDC (0.001 to 100, at most 6 decimals) to
                       whoever owns the agent then; the owner's login only. Omitted: kept
  --price-memory-tools with --price: paid replies may also search and read the agent's memory
                       (every context, your own notes included: only for an agent whose memory
                       is meant to be public); without it a payer reaches only its own conversation
  --no-price           no paid replies (POST …/paid/ask answers 404 pricing_not_set)
  --json               the saved settings as JSON (never the key)

${NEEDS}`,
  options: SETTINGS_SET_OPTIONS,
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    // A flag wrong on its own fails before any request.
    const given = givenSettings(values, env);
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    const input = settingsInput(given, namesEveryField(given) ? null : await currentSettings(agent));
    let saved: LlmSettings;
    try {
      saved = await agent.saveLlmSettings(input);
    } catch (err) {
      gatewayFailure(err, 'setting the LLM settings');
    }
    if (values.json === true) io.out(JSON.stringify(saved, null, 2));
    else printSettings(io, saved);
    if (values.standin === true)
      io.err(`settings set: the local stack's stand-in model at ${saved.baseUrl} (dev only: it echoes, it is not a real model)`);
    if (saved.credential === 'reenter_required') io.err(`settings set: the API key is ${KEY_STATE.reenter_required}`);
    return 0;
  },
};

export const settingsShowCommand: Command = {
  path: ['settings', 'show'],
  usage: 'agent-gateway settings show [--json]',
  help: `Shows the agent's LLM settings: provider, model, base URL, temperature, max tokens, whether
an API key is stored (never the key), the daily token limit, summaries, what delegates and renters
may do, the price of a paid reply, and when they changed.

Options:
  --json   the settings as the API answers them (apiKeySet and credential, never the key)

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    let settings: LlmSettings;
    try {
      settings = await agent.getLlmSettings();
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'llm_settings_not_found') {
        throw new CliError(`reading the settings: ${describeGatewayError(err)}; set them with agent-gateway settings set`);
      }
      gatewayFailure(err, 'reading the settings');
    }
    if (values.json === true) io.out(JSON.stringify(settings, null, 2));
    else printSettings(io, settings);
    return 0;
  },
};
