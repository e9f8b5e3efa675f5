/**
 * Tool servers (MCP, DESIGN §6): the agent's connections, add one (URL, name, a credential:
 * bearer token or a header name and value, write-only: the value is sent once and never shown),
 * check one (tools/list now, with its latency, and each tool's annotations), remove one (confirm).
 */
import { useState } from 'hono/jsx/dom';
import type { McpConnection, McpLiveTools, ToolServerAuthInput } from '../../client';
import { ConfirmButton } from '../ui/confirm';
import { SecretField, SelectField } from '../ui/controls';
import type { Problem } from '../ui/errors';
import { Field } from '../ui/field';
import { when } from '../ui/format';
import { describe, useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { ToolList } from '../ui/tool-list';
import type { PageProps } from './page';
import '../settings.css';

const AUTH_TYPES = ['none', 'bearer', 'header'] as const satisfies readonly ToolServerAuthInput['type'][];
type AuthType = (typeof AUTH_TYPES)[number];

const CREDENTIAL: Record<McpConnection['credential'], string> = {
  set: 'credential set',
  none: 'no credential',
  reenter_required: 're-enter credential',
};

function authOf(type: AuthType, headerName: string, value: string): ToolServerAuthInput {
  if (type === 'bearer') return { type, value };
  if (type === 'header') return { type, headerName: headerName.trim(), value };
  return { type: 'none' };
}

export function ToolServersPage({ agent }: PageProps) {
  const list = useLoad((signal) => agent.listMcpConnections({ signal }), [agent]);
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [authType, setAuthType] = useState<AuthType>('none');
  const [headerName, setHeaderName] = useState('x-api-key');
  const [value, setValue] = useState('');
  const [shown, setShown] = useState(false);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const add = useAction();
  const errors = {
    url: url.trim() === '' ? 'Enter the tool server URL.' : undefined,
    headerName: authType === 'header' && headerName.trim() === '' ? 'Enter the header name.' : undefined,
    value: authType !== 'none' && value === '' ? 'Enter the credential value.' : undefined,
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setStatus(undefined);
    if (errors.url || errors.headerName || errors.value) return;
    let added: McpConnection | undefined;
    const ok = await add.run(async () => {
      added = await agent.addMcpConnection({
        url: url.trim(),
        ...(name.trim() ? { name: name.trim() } : {}),
        auth: authOf(authType, headerName, value),
      });
    });
    if (ok && added) {
      setUrl('');
      setName('');
      setValue('');
      setShown(false);
      setStatus(`Added ${added.name ?? added.url}: ${added.tools.length} tool${added.tools.length === 1 ? '' : 's'}.`);
      list.reload();
    }
  };

  const connections = list.data?.connections ?? [];
  return (
    <>
      <section class="card" aria-labelledby="tools-title">
        <h1 id="tools-title">Tool servers</h1>
        {list.loading && !list.data ? <Status text="Loading the tool servers…" /> : null}
        <ErrorNotice problem={list.problem} />
        {list.data && connections.length === 0 ? <p class="muted">No tool servers yet.</p> : null}
        <ul class="list">
          {connections.map((c) => (
            <ConnectionItem
              connection={c}
              agent={agent}
              onRemoved={(text) => {
                setStatus(text);
                list.reload();
              }}
            />
          ))}
        </ul>
        <Status text={status} />
      </section>
      <section class="card" aria-labelledby="tools-add-title">
        <h2 id="tools-add-title">Add a tool server</h2>
        <form onSubmit={(e: Event) => void submit(e)} novalidate>
          <div class="grid">
            <Field
              label="URL"
              name="toolUrl"
              value={url}
              onInput={setUrl}
              placeholder="https://tools.example.com/mcp"
              error={shown ? errors.url : undefined}
            />
            <Field label="Name" name="toolName" value={name} onInput={setName} placeholder="optional" />
          </div>
          <div class="grid three">
            <SelectField
              label="Credential"
              name="authType"
              value={authType}
              options={AUTH_TYPES}
              onChange={(v) => setAuthType(AUTH_TYPES.find((t) => t === v) ?? 'none')}
              hint="bearer: Authorization: Bearer <value>; header: a header of your own"
            />
            {authType === 'header' ? (
              <Field
                label="Header name"
                name="headerName"
                value={headerName}
                onInput={setHeaderName}
                error={shown ? errors.headerName : undefined}
              />
            ) : null}
            {authType !== 'none' ? (
              <SecretField
                label={authType === 'header' ? 'Header value' : 'Token'}
                name="credentialValue"
                value={value}
                onInput={setValue}
                hint="Stored encrypted, never shown again."
                error={shown ? errors.value : undefined}
              />
            ) : null}
          </div>
          <button type="submit" class="primary" disabled={add.busy}>
            {add.busy ? 'Adding… (the gateway lists its tools)' : 'Add tool server'}
          </button>
        </form>
        <ErrorNotice problem={add.problem} />
      </section>
    </>
  );
}

function ConnectionItem({
  connection: c,
  agent,
  onRemoved,
}: {
  connection: McpConnection;
  agent: PageProps['agent'];
  onRemoved: (status: string) => void;
}) {
  const [live, setLive] = useState<McpLiveTools | undefined>(undefined);
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const remove = useAction();
  const label = c.name ?? c.url;
  const check = async () => {
    setChecking(true);
    setProblem(undefined);
    try {
      setLive(await agent.listMcpTools(c.id));
    } catch (err) {
      setLive(undefined);
      setProblem(describe(err));
    } finally {
      setChecking(false);
    }
  };
  const removeIt = async () => {
    if (await remove.run(() => agent.removeMcpConnection(c.id))) onRemoved(`Removed ${label}.`);
  };
  return (
    <li class="connection" aria-label={`Tool server ${label}`}>
      <div>
        <strong>{c.name ?? 'unnamed'}</strong> <span class={`badge ${c.credential}`}>{CREDENTIAL[c.credential]}</span>
      </div>
      <div class="mono">{c.url}</div>
      <div class="meta">
        auth {c.auth.type}
        {c.auth.headerName ? ` (${c.auth.headerName})` : ''}
        {c.auth.type !== 'none' ? (c.auth.valueSet ? ', value set (never shown)' : ', no value stored') : ''} · timeout {c.timeoutMs} ms ·{' '}
        {c.tools.length} tool
        {c.tools.length === 1 ? '' : 's'} · added {when(c.createdAt)}
      </div>
      <div class="actions">
        <button type="button" onClick={() => void check()} disabled={checking}>
          {checking ? 'Checking…' : 'Check'}
        </button>
        <ConfirmButton
          label="Remove"
          question={`Remove ${label}? Its stored credential is destroyed.`}
          confirmLabel="Yes, remove"
          busy={remove.busy}
          onConfirm={() => void removeIt()}
        />
      </div>
      <ErrorNotice problem={problem ?? remove.problem} />
      {live ? (
        <div class="live">
          <p class="ok-line" role="status">
            Reachable: tools/list answered in {live.health.latencyMs} ms.
          </p>
          <ToolList tools={live.tools} />
        </div>
      ) : null}
    </li>
  );
}
