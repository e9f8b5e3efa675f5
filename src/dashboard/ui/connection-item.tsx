/**
 * One tool-server connection of the tool servers page: what it is (URL, credential state, auth
 * type, header name: never a value), Check (tools/list now: latency and each tool with its
 * annotations), Replace credential (PUT …/auth: rotate yours, or enter your own after the agent
 * changed hands, with the full URL), Remove (confirm). An OAuth connection also shows its status,
 * scopes and token expiry, and Authorize while it waits for its owner's approval (./authorize).
 */
import { useState } from 'hono/jsx/dom';
import { type AgentClient, isGatewayError, type McpConnection, type McpLiveTools } from '../../client';
import { AuthorizeControls } from './authorize';
import { ConfirmButton } from './confirm';
import { authOf, CredentialFields, type CredentialForm, credentialReady, NO_CREDENTIAL } from './credential';
import type { Problem } from './errors';
import { Field } from './field';
import { when } from './format';
import { describe, useAction } from './load';
import { ErrorNotice } from './notice';
import { ToolList } from './tool-list';

const CREDENTIAL: Record<McpConnection['credential'], string> = {
  set: 'credential set',
  none: 'no credential',
  reenter_required: 're-enter credential',
};

const STATUS: Record<McpConnection['status'], string> = {
  ready: 'ready',
  authorization_required: 'authorization required',
};

/** What the meta line says of the auth: the header name, whether a value is stored, OAuth's scopes and expiry. */
function authSummary(c: McpConnection): string {
  if (c.auth.type === 'oauth') {
    const scopes = c.authorization?.scopes.length ? `, scopes ${c.authorization.scopes.join(' ')}` : '';
    const expires = c.authorization?.expiresAt ? `, token renewed before ${when(c.authorization.expiresAt)}` : '';
    return `auth OAuth${scopes}${c.status === 'ready' ? expires : ', not authorized yet'}`;
  }
  const header = c.auth.headerName ? ` (${c.auth.headerName})` : '';
  const value = c.auth.type !== 'none' ? (c.auth.valueSet ? ', value set (never shown)' : ', no value stored') : '';
  return `auth ${c.auth.type}${header}${value}`;
}

export function ConnectionItem({
  connection: c,
  agent,
  authorizeUrl,
  onChanged,
  onAuthorizeOpened,
  onCheckAgain,
}: {
  connection: McpConnection;
  agent: AgentClient;
  /** A link to authorize an OAuth connection the page already has (the add's answer). */
  authorizeUrl?: string | undefined;
  onChanged: (status: string) => void;
  onAuthorizeOpened: () => void;
  onCheckAgain: () => void;
}) {
  const [live, setLive] = useState<McpLiveTools | undefined>(undefined);
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const remove = useAction();
  const [replacing, setReplacing] = useState(c.credential === 'reenter_required');
  // The link of a credential change to OAuth (PUT …/auth answers with one).
  const [replacedUrl, setReplacedUrl] = useState<string | undefined>(undefined);
  const label = c.name ?? c.url;
  const check = async () => {
    setChecking(true);
    setProblem(undefined);
    try {
      setLive(await agent.listMcpTools(c.id));
    } catch (err) {
      setLive(undefined);
      setProblem(describe(err));
      // The server wants a (new) authorization: the list then shows the status and Authorize.
      if (isGatewayError(err) && err.code === 'tool_authorization_required') onCheckAgain();
    } finally {
      setChecking(false);
    }
  };
  const removeIt = async () => {
    if (await remove.run(() => agent.removeMcpConnection(c.id))) onChanged(`Removed ${label}.`);
  };
  return (
    <li class="connection" aria-label={`Tool server ${label}`}>
      <div>
        <strong>{c.name ?? 'unnamed'}</strong>{' '}
        {c.auth.type === 'oauth' ? null : <span class={`badge ${c.credential}`}>{CREDENTIAL[c.credential]}</span>}{' '}
        <span class={`badge ${c.status}`}>{STATUS[c.status]}</span>
      </div>
      <div class="mono">{c.url}</div>
      <div class="meta">
        {authSummary(c)} · timeout {c.timeoutMs} ms · {c.tools.length} tool
        {c.tools.length === 1 ? '' : 's'} · added {when(c.createdAt)}
      </div>
      {c.status === 'authorization_required' && c.credential !== 'reenter_required' ? (
        <AuthorizeControls
          connection={c}
          agent={agent}
          url={replacedUrl ?? authorizeUrl}
          onOpened={onAuthorizeOpened}
          onCheck={onCheckAgain}
        />
      ) : null}
      <div class="actions">
        <button type="button" onClick={() => void check()} disabled={checking}>
          {checking ? 'Checking…' : 'Check'}
        </button>
        <button type="button" aria-expanded={replacing} onClick={() => setReplacing(!replacing)}>
          Replace credential
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
      {replacing ? (
        <ReplaceCredential
          connection={c}
          agent={agent}
          onReplaced={(answer) => {
            setReplacing(false);
            setReplacedUrl(answer.authorizeUrl);
            onChanged(
              answer.authorizeUrl === undefined ? `New credential of ${label} saved.` : `${label} now uses OAuth: authorize it below.`,
            );
          }}
        />
      ) : null}
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

/** The credential form of one connection: the full URL asked when another wallet registered it. */
function ReplaceCredential({
  connection: c,
  agent,
  onReplaced,
}: {
  connection: McpConnection;
  agent: AgentClient;
  onReplaced: (answer: McpConnection) => void;
}) {
  const [credential, setCredential] = useState<CredentialForm>({
    ...NO_CREDENTIAL,
    ...(c.auth.type === 'none' ? {} : { type: c.auth.type }),
    headerName: c.auth.headerName ?? NO_CREDENTIAL.headerName,
  });
  const [url, setUrl] = useState('');
  const [shown, setShown] = useState(false);
  const save = useAction();
  const foreign = c.credential === 'reenter_required';
  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    if (!credentialReady(credential) || (foreign && url.trim() === '')) return;
    let answer: McpConnection | undefined;
    const saved = await save.run(async () => {
      answer = await agent.replaceMcpAuth(c.id, authOf(credential), foreign ? { url: url.trim() } : {});
    });
    if (saved && answer) onReplaced(answer);
  };
  return (
    <form class="replace" onSubmit={(e: Event) => void submit(e)} novalidate aria-label={`New credential for ${c.name ?? c.url}`}>
      {foreign ? (
        <Field
          label="Full URL"
          name={`url-${c.id}`}
          value={url}
          onInput={setUrl}
          hint="Another wallet registered this server: its full URL shows you know it (a URL can carry a key)."
          error={shown && url.trim() === '' ? 'Enter the full URL.' : undefined}
        />
      ) : null}
      <CredentialFields prefix={`replace-${c.id}`} form={credential} onChange={setCredential} shown={shown} />
      <button type="submit" class="primary" disabled={save.busy}>
        {save.busy ? 'Saving… (the gateway lists its tools)' : 'Save credential'}
      </button>
      <ErrorNotice problem={save.problem} />
    </form>
  );
}
