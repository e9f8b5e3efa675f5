/**
 * The shell: login, then the agent picker, then the page the location hash names, under a header
 * (wallet, agent, change agent, log out) and a nav built from the page list of main.tsx.
 */
import { useEffect, useMemo, useRef, useState } from 'hono/jsx/dom';
import type { LoginSession } from '../client';
import { agentClient, walletClient } from './gateway';
import { AgentPicker } from './pages/agent-picker';
import { LoginPage } from './pages/login';
import type { PageEntry } from './pages/page';
import { hashOf, parseHash } from './routes';
import { clearSession, loadAgent, loadSession, type PickedAgent, type StoredSession, saveAgent, saveSession } from './session';
import { focusHeading, focusMainHeading } from './ui/focus';
import { NotAllowed, refusal, useReach } from './ui/role';

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

export function App({ pages }: { pages: PageEntry[] }) {
  const initial = useMemo(() => loadSession(), []);
  const [session, setSession] = useState<StoredSession | undefined>(initial.session);
  const [notice, setNotice] = useState<string | undefined>(initial.expired ? 'Your session expired: log in again.' : undefined);
  const [agent, setAgent] = useState<PickedAgent | undefined>(() => (initial.session ? loadAgent() : undefined));
  const [route, setRoute] = useState(() => parseHash(location.hash));

  useEffect(() => {
    const onHash = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const logOut = (message: string, forgetAgent: boolean) => {
    clearSession(forgetAgent);
    setSession(undefined);
    setAgent(undefined);
    setNotice(message);
  };
  const onUnauthorized = (code: string) =>
    logOut(`The gateway no longer accepts this tab's login (${code}): it expired or was revoked. Log in again.`, false);
  const client = useMemo(
    () => (session && agent ? agentClient(session, agent, onUnauthorized) : undefined),
    [session?.token, agent?.collection, agent?.tokenId],
  );
  const wallet = useMemo(() => (session ? walletClient(session, onUnauthorized) : undefined), [session?.token]);
  const entry = pages.find((p) => p.path === route.path) ?? pages[0];
  const reach = useReach(client);

  // The tab's title names the view; after a change of view (logged in, agent picked, another
  // page), focus goes to its heading: not left on a button that is gone, which drops it to <body>.
  const view = !session ? 'Log in' : !agent || !client ? 'Pick an agent' : (entry?.title ?? 'Agent');
  const firstView = useRef(true);
  useEffect(() => {
    document.title = `${view} · agent-gateway`;
    if (firstView.current) firstView.current = false;
    else focusMainHeading();
  }, [view]);

  if (!session) {
    const onLogin = (fresh: LoginSession) => {
      setNotice(undefined);
      setSession(saveSession(fresh));
      setAgent(loadAgent());
    };
    return (
      <Frame>
        <LoginPage notice={notice} onLogin={onLogin} />
      </Frame>
    );
  }

  const header = (
    <header class="top">
      <a class="brand" href="#/">
        agent-gateway
      </a>
      <span class="muted" title={session.walletAddress}>
        {short(session.walletAddress)} · chain {session.chainId}
      </span>
      {agent ? (
        <span class="muted" title={`${agent.collection} #${agent.tokenId}`}>
          agent {short(agent.collection)} #{agent.tokenId.length > 12 ? `${agent.tokenId.slice(0, 10)}…` : agent.tokenId}
          {reach && reach.role !== 'owner' ? ` · as ${reach.role}` : ''}
        </span>
      ) : null}
      <span class="spacer" />
      {agent ? (
        <button type="button" onClick={() => setAgent(undefined)}>
          Change agent
        </button>
      ) : null}
      <button type="button" id="logout" onClick={() => logOut('You logged out.', true)}>
        Log out
      </button>
    </header>
  );

  if (!agent || !client) {
    const pick = (picked: PickedAgent) => {
      saveAgent(picked);
      setAgent(picked);
    };
    return <Frame header={header}>{wallet ? <AgentPicker initial={loadAgent()} wallet={wallet} onPick={pick} /> : null}</Frame>;
  }

  const navigate = (path: string, ...params: string[]) => {
    location.hash = hashOf(path, ...params);
  };
  const blocked = entry ? refusal(reach, entry.need ?? 'use', entry.title) : undefined;
  return (
    <Frame header={header}>
      <nav class="tabs" aria-label="Pages">
        {pages.map((p) => (
          <a href={hashOf(p.path)} aria-current={p === entry ? 'page' : undefined}>
            {p.title}
          </a>
        ))}
      </nav>
      {entry && blocked ? (
        <NotAllowed title={entry.title} text={blocked} onUse={() => navigate('memory')} />
      ) : entry ? (
        <entry.Page
          agent={client}
          walletAddress={session.walletAddress}
          params={entry.path === route.path ? route.params : []}
          navigate={navigate}
        />
      ) : null}
    </Frame>
  );
}

/** To the main heading past the header and the nav (a button: a hash link would change the page's route). */
const skipToMain = () => {
  if (!focusHeading(document.querySelector('main h1'))) focusHeading(document.getElementById('main'));
};

function Frame({ header, children }: { header?: unknown; children?: unknown }) {
  return (
    <div class="frame">
      <button type="button" class="skip-link" onClick={skipToMain}>
        Skip to the page
      </button>
      {header}
      <main id="main">{children}</main>
      <footer class="foot muted">
        <a href="/docs">API reference</a> · <a href="/docs#guides">Guides</a> (in <code>docs/</code> of the repository and the npm package)
      </footer>
    </div>
  );
}
