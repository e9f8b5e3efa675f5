/**
 * LLM settings: provider, model, base URL, temperature, max tokens, the agent's daily
 * token limit and summaries, as the route's schema has them. The provider key is write-only: the
 * page says whether one is stored ("Key set"), takes a new one, or removes it; it never shows one.
 * The owner also chooses here what delegates and renters may do (`access`) and the price of a paid
 * reply (`pricing`); a delegate the owner lets administer the agent sees the rest of the page, and
 * saves leave both as they are.
 */
import { useState } from 'hono/jsx/dom';
import type { AgentAccess, AgentRole, LlmSettings, LlmSettingsInput } from '../../client';
import { LLM_PROVIDERS } from '../../settings/llm-providers';
import { AccessChoice, DEFAULT_ACCESS } from '../ui/access-choice';
import { CheckField, SecretField, SelectField } from '../ui/controls';
import { Field } from '../ui/field';
import { when } from '../ui/format';
import { useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { PaidReplies } from '../ui/paid-replies';
import { type PaidForm, priceError, pricingOf } from '../ui/paid-rules';
import type { PageProps } from './page';
import '../settings.css';

interface Form {
  provider: string;
  model: string;
  baseUrl: string;
  temperature: string;
  maxTokens: string;
  tokensPerDay: string;
  summaries: boolean;
  apiKey: string;
  removeKey: boolean;
  access: AgentAccess;
  paid: PaidForm;
}

const EMPTY: Form = {
  provider: 'openai',
  model: '',
  baseUrl: '',
  temperature: '0.7',
  maxTokens: '1024',
  tokensPerDay: '',
  summaries: true,
  apiKey: '',
  removeKey: false,
  access: DEFAULT_ACCESS,
  paid: { price: '', memoryTools: false },
};

const formOf = (s: LlmSettings): Form => ({
  provider: s.provider,
  model: s.model,
  baseUrl: s.baseUrl ?? '',
  temperature: String(s.temperature),
  maxTokens: String(s.maxTokens),
  tokensPerDay: s.limits.tokensPerDay === null ? '' : String(s.limits.tokensPerDay),
  summaries: s.summaries,
  apiKey: '',
  removeKey: false,
  access: s.access ?? DEFAULT_ACCESS,
  paid: { price: s.pricing?.askUsd ?? '', memoryTools: s.pricing?.memoryTools ?? false },
});

const KEY_STATE: Record<LlmSettings['credential'], string> = {
  set: 'Key set: a key you entered is stored (never shown).',
  none: 'No key stored.',
  reenter_required:
    'Re-enter the key: the stored one was entered by an earlier owner, or for another provider or base URL, and is never used for you.',
};

/** Whether saving `form` changes the provider or base URL the stored key was entered for (the gateway then drops it). */
const keyDropped = (s: LlmSettings, form: Form) => s.provider !== form.provider.trim() || (s.baseUrl ?? '') !== form.baseUrl.trim();

/** The numbers of the form as numbers, or what is wrong with each in words. */
function numbers(form: Form) {
  const num = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));
  const temperature = num(form.temperature);
  const maxTokens = num(form.maxTokens);
  const tokensPerDay = form.tokensPerDay.trim() === '' ? null : num(form.tokensPerDay);
  const errors = {
    temperature: Number.isFinite(temperature) ? undefined : 'Temperature is a number from 0 to 2.',
    maxTokens: Number.isInteger(maxTokens) ? undefined : 'Max tokens is a whole number.',
    tokensPerDay:
      tokensPerDay === null || Number.isInteger(tokensPerDay) ? undefined : 'Tokens per day is a whole number, or empty for no limit.',
  };
  return { temperature, maxTokens, tokensPerDay, errors };
}

export function LlmSettingsPage({ agent }: PageProps) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [shown, setShown] = useState(false);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [role, setRole] = useState<AgentRole | undefined>(undefined);
  const loaded = useLoad(
    async (signal) => {
      // Asked only once saved (`configured.llmSettings`): an agent without settings costs no 404 for the console to log.
      const { configured, role } = await agent.getAgent({ signal });
      setRole(role);
      if (!configured.llmSettings) return null;
      const settings = await agent.getLlmSettings({ signal });
      setForm(formOf(settings));
      return settings;
    },
    [agent],
  );
  const [settings, setSettings] = useState<LlmSettings | null | undefined>(undefined);
  const current = settings === undefined ? loaded.data : settings;
  const save = useAction();
  const set =
    <K extends keyof Form>(key: K) =>
    (value: Form[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const n = numbers(form);

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setSaved(undefined);
    if (n.errors.temperature || n.errors.maxTokens || n.errors.tokensPerDay) return;
    if (role === 'owner' && priceError(form.paid.price)) return;
    const input: LlmSettingsInput = {
      provider: form.provider.trim(),
      model: form.model.trim(),
      baseUrl: form.baseUrl.trim() === '' ? null : form.baseUrl.trim(),
      temperature: n.temperature,
      maxTokens: n.maxTokens,
      limits: { tokensPerDay: n.tokensPerDay },
      summaries: form.summaries,
      ...(form.removeKey ? { apiKey: null } : form.apiKey !== '' ? { apiKey: form.apiKey } : {}),
      // The owner's alone: anyone else's save leaves it out, and the gateway keeps it.
      ...(role === 'owner' ? { access: form.access, pricing: pricingOf(form.paid) } : {}),
    };
    let answer: LlmSettings | undefined;
    const ok = await save.run(async () => {
      answer = await agent.saveLlmSettings(input);
    });
    if (ok && answer) {
      setSettings(answer);
      setForm((f) => ({ ...f, apiKey: '', removeKey: false }));
      setSaved(`Saved ${when(answer.updatedAt)}.`);
    }
  };

  return (
    <section class="card" aria-labelledby="llm-title">
      <h1 id="llm-title">LLM settings</h1>
      {loaded.loading && current === undefined ? <Status text="Loading the settings…" /> : null}
      <ErrorNotice problem={loaded.problem} />
      {current === null ? <p class="muted">No settings yet: replies wait until you save some.</p> : null}
      <form onSubmit={(e: Event) => void submit(e)} novalidate>
        <div class="grid">
          <SelectField label="Provider" name="provider" value={form.provider} options={LLM_PROVIDERS} onChange={set('provider')} />
          <Field label="Model" name="model" value={form.model} onInput={set('model')} placeholder="gpt-4.1-mini" />
        </div>
        <Field
          label="Base URL"
          name="baseUrl"
          value={form.baseUrl}
          onInput={set('baseUrl')}
          placeholder="https://api.groq.com/openai/v1"
          hint="Empty: the provider's own. Needed for openai-compatible."
        />
        <div class="grid three">
          <Field
            label="Temperature"
            name="temperature"
            value={form.temperature}
            onInput={set('temperature')}
            inputmode="text"
            error={shown ? n.errors.temperature : undefined}
          />
          <Field
            label="Max tokens"
            name="maxTokens"
            value={form.maxTokens}
            onInput={set('maxTokens')}
            inputmode="numeric"
            error={shown ? n.errors.maxTokens : undefined}
          />
          <Field
            label="Tokens per day"
            name="tokensPerDay"
            value={form.tokensPerDay}
            onInput={set('tokensPerDay')}
            inputmode="numeric"
            placeholder="no limit"
            error={shown ? n.errors.tokensPerDay : undefined}
          />
        </div>
        <CheckField
          label="Summaries"
          name="summaries"
          checked={form.summaries}
          onChange={set('summaries')}
          hint="After a reply leaves older messages out, the model summarises them (one more call, counted in usage)."
        />
        <fieldset class="secret">
          <legend>API key</legend>
          <p class={`key-state ${current?.credential ?? 'none'}`} id="key-state">
            {KEY_STATE[current?.credential ?? 'none']}
          </p>
          {current?.apiKeySet && form.apiKey === '' && !form.removeKey && keyDropped(current, form) ? (
            <p class="notice warn">A key is bound to its provider and base URL: saving this change drops the stored key. Enter it again.</p>
          ) : null}
          <SecretField
            label={current?.apiKeySet ? 'Replace the key' : 'API key'}
            name="apiKey"
            value={form.apiKey}
            onInput={set('apiKey')}
            hint="Stored encrypted, never shown again. Leave empty to keep the stored key."
          />
          {current?.apiKeySet ? (
            <CheckField label="Remove the stored key" name="removeKey" checked={form.removeKey} onChange={set('removeKey')} />
          ) : null}
        </fieldset>
        {role === 'owner' ? <AccessChoice value={form.access} onChange={set('access')} /> : null}
        {role === 'owner' ? (
          <PaidReplies
            value={form.paid}
            onChange={set('paid')}
            paidUrl={`${location.origin}${agent.path}/paid/ask`}
            error={shown ? priceError(form.paid.price) : undefined}
          />
        ) : null}
        <button type="submit" class="primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save settings'}
        </button>
      </form>
      <Status text={saved} />
      <ErrorNotice problem={save.problem} />
    </section>
  );
}
