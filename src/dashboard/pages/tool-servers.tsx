/**
 * Tool servers (MCP; docs/tools.md): the agent's connections, add one (URL, name, a credential:
 * bearer token or a header name and value, write-only: the value is sent once and never shown),
 * check one (tools/list now, with its latency, and each tool's annotations), remove one (confirm).
 */
import { useState } from 'hono/jsx/dom';
import type { McpConnection } from '../../client';
import { ConnectionItem } from '../ui/connection-item';
import { authOf, CredentialFields, type CredentialForm, credentialProblems, NO_CREDENTIAL } from '../ui/credential';
import { Field } from '../ui/field';
import { useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import type { PageProps } from './page';
import '../settings.css';

export function ToolServersPage({ agent }: PageProps) {
  const list = useLoad((signal) => agent.listMcpConnections({ signal }), [agent]);
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [credential, setCredential] = useState<CredentialForm>(NO_CREDENTIAL);
  const [shown, setShown] = useState(false);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const add = useAction();
  const errors = { url: url.trim() === '' ? 'Enter the tool server URL.' : undefined, ...credentialProblems(credential) };

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
        auth: authOf(credential),
      });
    });
    if (ok && added) {
      setUrl('');
      setName('');
      setCredential((c) => ({ ...c, value: '' }));
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
              key={c.id}
              connection={c}
              agent={agent}
              onChanged={(text) => {
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
          <CredentialFields prefix="add" form={credential} onChange={setCredential} shown={shown} />
          <button type="submit" class="primary" disabled={add.busy}>
            {add.busy ? 'Adding… (the gateway lists its tools)' : 'Add tool server'}
          </button>
        </form>
        <ErrorNotice problem={add.problem} />
      </section>
    </>
  );
}
