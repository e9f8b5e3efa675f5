/**
 * Authorize an OAuth tool server (a connection whose `status` is `authorization_required`): a
 * link to the server's authorization page, opened in a new tab (`rel="noopener"`: the page there
 * gets no handle on this one). The link comes from the add's answer, or from **Authorize**
 * (`POST …/authorize`: a fresh one, single use, 10 minutes). Once it was opened, **Check again**
 * lists the connections anew (the page also does on its own when the tab comes back into view).
 */
import { useEffect, useState } from 'hono/jsx/dom';
import type { AgentClient, McpConnection } from '../../client';
import { useAction } from './load';
import { ErrorNotice } from './notice';

export function AuthorizeControls(props: {
  connection: McpConnection;
  agent: AgentClient;
  /** A link the page already has (the add's answer). */
  url: string | undefined;
  /** The link was opened: the page watches for the status to change. */
  onOpened: () => void;
  onCheck: () => void;
}) {
  const { connection: c, agent } = props;
  const [link, setLink] = useState<string | undefined>(props.url);
  const [opened, setOpened] = useState(false);
  const fetchLink = useAction();
  const linkId = `authorize-${c.id}`;
  useEffect(() => {
    if (props.url === undefined) return;
    setLink(props.url);
    setOpened(false);
  }, [props.url]);
  useEffect(() => {
    if (link !== undefined) document.getElementById(linkId)?.focus();
  }, [link]);

  const fresh = async () => {
    let url: string | undefined;
    if (await fetchLink.run(async () => (url = (await agent.authorizeMcpConnection(c.id)).authorizeUrl))) {
      setOpened(false);
      setLink(url);
    }
  };
  const host = link === undefined ? '' : hostOf(link);
  return (
    <div class="authorize">
      <p class="muted">This server asks you to approve the gateway on its own page: until then its tools cannot be used.</p>
      <div class="actions">
        {link !== undefined && !opened ? (
          <a
            id={linkId}
            class="button primary"
            href={link}
            target="_blank"
            rel="noopener noreferrer"
            onClick={() => {
              setOpened(true);
              props.onOpened();
            }}
          >
            Authorize at {host}
            <span class="visually-hidden"> (opens in a new tab)</span>
          </a>
        ) : (
          <button type="button" class={opened ? '' : 'primary'} onClick={() => void fresh()} disabled={fetchLink.busy}>
            {fetchLink.busy ? 'Getting a link…' : opened ? 'New authorization link' : 'Authorize'}
          </button>
        )}
        {opened ? (
          <button type="button" onClick={props.onCheck}>
            Check again
          </button>
        ) : null}
      </div>
      {opened ? (
        <p class="muted" role="status">
          Approve in the new tab, then come back here: the status updates when you do. A link works once, for 10 minutes.
        </p>
      ) : null}
      <ErrorNotice problem={fetchLink.problem} />
    </div>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the tool server';
  }
}
