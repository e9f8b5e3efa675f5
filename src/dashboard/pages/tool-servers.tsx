/**
 * Tool servers (MCP; docs/tools.md): the agent's connections, add one (URL, name, a credential:
 * bearer token or a header name and value, write-only: the value is sent once and never shown; or
 * OAuth, then Authorize), check one (tools/list now, with its latency, and each tool's
 * annotations), remove one (confirm). While a connection waits for its authorization, the list is
 * read again when the tab comes back into view, and every few seconds after a link was opened.
 */
import { useEffect, useRef, useState } from 'hono/jsx/dom';
import type { McpConnection } from '../../client';
import { ConnectionItem } from '../ui/connection-item';
import { authOf, CredentialFields, type CredentialForm, credentialReady, NO_CREDENTIAL } from '../ui/credential';
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
  const urlError = url.trim() === '' ? 'Enter the tool server URL.' : undefined;
  // Authorize links from the add's answers, by connection id.
  const [links, setLinks] = useState<Record<string, string>>({});
  const [waitingSince, setWaitingSince] = useState<number | undefined>(undefined);
  const connections = list.data?.connections ?? [];
  const pending = connections.some((c) => c.status === 'authorization_required');
  useAuthorizationWatch(pending, waitingSince, list.reload);
  useReadyAnnouncement(connections, setStatus);

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setStatus(undefined);
    if (urlError || !credentialReady(credential)) return;
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
      const { id, authorizeUrl } = added;
      if (authorizeUrl !== undefined) setLinks((l) => ({ ...l, [id]: authorizeUrl }));
      setStatus(
        authorizeUrl === undefined
          ? `Added ${added.name ?? added.url}: ${added.tools.length} tool${added.tools.length === 1 ? '' : 's'}.`
          : `Added ${added.name ?? added.url}: authorize it to use its tools.`,
      );
      list.reload();
    }
  };

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
              authorizeUrl={links[c.id]}
              onAuthorizeOpened={() => setWaitingSince(Date.now())}
              onCheckAgain={list.reload}
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
              error={shown ? urlError : undefined}
            />
            <Field label="Name" name="toolName" value={name} onInput={setName} placeholder="optional" />
          </div>
          <CredentialFields prefix="add" form={credential} onChange={setCredential} shown={shown} />
          <button type="submit" class="primary" disabled={add.busy}>
            {add.busy
              ? credential.type === 'oauth'
                ? 'Adding… (the gateway finds its sign-in page)'
                : 'Adding… (the gateway lists its tools)'
              : 'Add tool server'}
          </button>
        </form>
        <ErrorNotice problem={add.problem} />
      </section>
    </>
  );
}

/** How long after a link was opened the page keeps asking (a link is valid 10 minutes). */
const WATCH_MS = 10 * 60_000;
const POLL_MS = 4_000;

/**
 * While a connection waits for its authorization: read the list again when the tab comes back into
 * view (the owner returns from the authorization page), and every few seconds for 10 minutes after
 * a link was opened.
 */
function useAuthorizationWatch(pending: boolean, waitingSince: number | undefined, reload: () => void): void {
  useEffect(() => {
    if (!pending) return;
    const visible = () => {
      if (document.visibilityState === 'visible') reload();
    };
    window.addEventListener('focus', visible);
    document.addEventListener('visibilitychange', visible);
    const timer =
      waitingSince === undefined
        ? undefined
        : setInterval(() => {
            if (Date.now() - waitingSince < WATCH_MS) visible();
          }, POLL_MS);
    return () => {
      window.removeEventListener('focus', visible);
      document.removeEventListener('visibilitychange', visible);
      if (timer !== undefined) clearInterval(timer);
    };
  }, [pending, waitingSince]);
}

/** Says so in the status line when a connection turns from `authorization_required` to `ready`. */
function useReadyAnnouncement(connections: McpConnection[], say: (text: string) => void): void {
  const before = useRef<Map<string, McpConnection['status']>>(new Map());
  useEffect(() => {
    for (const c of connections) {
      if (c.status === 'ready' && before.current.get(c.id) === 'authorization_required') {
        say(`Authorized ${c.name ?? c.url}: ${c.tools.length} tool${c.tools.length === 1 ? '' : 's'}, ready.`);
      }
    }
    before.current = new Map(connections.map((c) => [c.id, c.status]));
  }, [connections]);
}
