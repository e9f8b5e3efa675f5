/**
 * Agent keys: create one (name, scopes from the route's own list, an MCP tool
 * allowlist, a lifetime, a daily token limit), its secret shown once with a Copy button; the live
 * keys listed (never a secret); revoke one (confirm). Below: the apps with OAuth access (oauth-grants.tsx).
 */
import { useState } from 'hono/jsx/dom';
import type { AgentKey, AgentKeyScope, CreatedAgentKey, NewAgentKey } from '../../client';
import { KEY_SCOPES } from '../../identity/key-scopes';
import { ConfirmButton } from '../ui/confirm';
import { CheckField, SelectField } from '../ui/controls';
import { Field } from '../ui/field';
import { count, when } from '../ui/format';
import { useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { SecretOnce } from '../ui/secret-once';
import { OAuthGrantsSection } from './oauth-grants';
import type { PageProps } from './page';
import '../settings.css';

const SCOPE_MEANING: Record<AgentKeyScope, string> = {
  'contexts:read': 'list contexts, read messages and summaries, search memory',
  'contexts:write': 'create contexts, append messages',
  reply: "the agent's replies and its OpenAI-compatible chat",
  mcp: "the agent's MCP server and its tools",
};

const DAY = 86_400;
const LIFETIMES: Record<string, number | undefined> = {
  'until revoked': undefined,
  '1 hour': 3_600,
  '1 day': DAY,
  '7 days': 7 * DAY,
  '30 days': 30 * DAY,
  '90 days': 90 * DAY,
  '1 year': 365 * DAY,
};

export function KeysPage({ agent }: PageProps) {
  const list = useLoad((signal) => agent.listAgentKeys({ signal }), [agent]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<AgentKeyScope[]>(['contexts:read']);
  const [tools, setTools] = useState('');
  const [lifetime, setLifetime] = useState('30 days');
  const [tokensPerDay, setTokensPerDay] = useState('');
  const [shown, setShown] = useState(false);
  const [created, setCreated] = useState<CreatedAgentKey | undefined>(undefined);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const create = useAction();
  const toolNames = tools
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);
  const limit = tokensPerDay.trim() === '' ? undefined : Number(tokensPerDay);
  const errors = {
    name: name.trim() === '' ? 'Name the key: what it is for.' : undefined,
    scopes: scopes.length === 0 ? 'Pick at least one scope.' : undefined,
    tokensPerDay: limit === undefined || Number.isInteger(limit) ? undefined : 'Tokens per day is a whole number, or empty for no limit.',
  };
  const toggle = (scope: AgentKeyScope) => (on: boolean) =>
    setScopes((s) => (on ? KEY_SCOPES.filter((k) => k === scope || s.includes(k)) : s.filter((k) => k !== scope)));

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setStatus(undefined);
    if (errors.name || errors.scopes || errors.tokensPerDay) return;
    const expiresInSeconds = LIFETIMES[lifetime];
    const input: NewAgentKey = {
      name: name.trim(),
      scopes,
      ...(scopes.includes('mcp') && toolNames.length > 0 ? { tools: toolNames } : {}),
      ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
      ...(limit === undefined ? {} : { limits: { tokensPerDay: limit } }),
    };
    let answer: CreatedAgentKey | undefined;
    const ok = await create.run(async () => {
      answer = await agent.createAgentKey(input);
    });
    if (ok && answer) {
      setCreated(answer);
      setName('');
      setShown(false);
      list.reload();
    }
  };

  const keys = list.data?.keys ?? [];
  return (
    <>
      <section class="card" aria-labelledby="keys-create-title">
        <h1 id="keys-create-title">Agent keys</h1>
        <p class="muted">Scoped, revocable credentials for pipelines and bridges, acting for your wallet on this agent only.</p>
        {created ? (
          <SecretOnce
            label={`Key ${created.name}`}
            secret={created.key}
            onDone={() => {
              setCreated(undefined);
              setStatus('The key is no longer shown; it stays usable until revoked or expired.');
            }}
          />
        ) : null}
        <form onSubmit={(e: Event) => void submit(e)} novalidate>
          <Field
            label="Name"
            name="keyName"
            value={name}
            onInput={setName}
            placeholder="nightly hydrate"
            error={shown ? errors.name : undefined}
          />
          <fieldset>
            <legend>Scopes</legend>
            {KEY_SCOPES.map((scope) => (
              <CheckField
                label={scope}
                name={`scope-${scope}`}
                checked={scopes.includes(scope)}
                onChange={toggle(scope)}
                hint={SCOPE_MEANING[scope]}
              />
            ))}
            {shown && errors.scopes ? <small class="field-error">{errors.scopes}</small> : null}
          </fieldset>
          {scopes.includes('mcp') ? (
            <Field
              label="MCP tools"
              name="keyTools"
              value={tools}
              onInput={setTools}
              placeholder="every tool"
              hint="Separated by commas: a built-in (ask, memory_search, …), a tool server tool by its own name, or CONNECTION-ID/name for one server's tool; empty: every tool."
            />
          ) : null}
          <div class="grid">
            <SelectField label="Expires" name="keyLifetime" value={lifetime} options={Object.keys(LIFETIMES)} onChange={setLifetime} />
            <Field
              label="Tokens per day"
              name="keyTokensPerDay"
              value={tokensPerDay}
              onInput={setTokensPerDay}
              inputmode="numeric"
              placeholder="no limit of its own"
              error={shown ? errors.tokensPerDay : undefined}
            />
          </div>
          <button type="submit" class="primary" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        <ErrorNotice problem={create.problem} />
      </section>
      <section class="card" aria-labelledby="keys-list-title">
        <h2 id="keys-list-title">Live keys</h2>
        {list.loading && !list.data ? <Status text="Loading the keys…" /> : null}
        <ErrorNotice problem={list.problem} />
        {list.data && keys.length === 0 ? <p class="muted">No live keys.</p> : null}
        <ul class="list">
          {keys.map((k) => (
            <KeyItem
              key={k.id}
              item={k}
              onRevoke={async () => {
                await agent.revokeAgentKey(k.id);
                setStatus(`Revoked ${k.name}.`);
                list.reload();
              }}
            />
          ))}
        </ul>
        <Status text={status} />
      </section>
      <OAuthGrantsSection agent={agent} />
    </>
  );
}

function KeyItem({ item: k, onRevoke }: { item: AgentKey; onRevoke: () => Promise<void> }) {
  const revoke = useAction();
  const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
  return (
    <li aria-label={`Key ${k.name}`}>
      <div>
        <strong>{k.name}</strong> {expired ? <span class="badge reenter_required">expired</span> : null}
      </div>
      <div class="meta">
        {k.scopes.join(', ')}
        {k.tools ? ` · tools ${k.tools.join(', ')}` : ''} · created {when(k.createdAt)} · expires {when(k.expiresAt, 'never')} · last used{' '}
        {when(k.lastUsedAt, 'never')} · {count(k.useCount)} requests
        {k.limits.tokensPerDay === null ? '' : ` · ${count(k.limits.tokensPerDay)} tokens a day`}
      </div>
      <div class="meta mono">id {k.id}</div>
      <div class="actions">
        <ConfirmButton
          label="Revoke"
          question={`Revoke ${k.name}? Its next request is refused.`}
          confirmLabel="Yes, revoke"
          busy={revoke.busy}
          onConfirm={() => void revoke.run(onRevoke)}
        />
      </div>
      <ErrorNotice problem={revoke.problem} />
    </li>
  );
}
