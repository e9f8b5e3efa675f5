import type { ConsentDescription } from '@cloudflare/workers-oauth-provider';
import type { Address } from 'viem';
import type { AgentSurface } from './resource';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/** The pages' style, in the light and the dark scheme (as the system says), with a visible focus ring. */
const STYLE = `:root{color-scheme:light dark;--bg:#fff;--fg:#111;--muted:#555;--warn:#fff4e5;--error:#b00020;--accent:#2f4fc4;--focus:#c2410c}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e8eb;--muted:#9aa3ae;--warn:#3a3118;--error:#ff8a80;--accent:#7d95ff;--focus:#f59f00}}
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}code{word-break:break-all}.warn{background:var(--warn);padding:.5rem .75rem;border-radius:6px}
button{font:inherit;padding:.5rem 1rem;color:#fff;background:var(--accent);border:1px solid var(--accent);border-radius:6px;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#0d1117}}
button.secondary{color:var(--accent);background:transparent}
button:disabled{opacity:.6;cursor:default}:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
#status{min-height:1.5rem}.error{color:var(--error)}`;

/** The head both pages share: the viewport for phones, both colour schemes, the style by its nonce. */
const head = (title: string, nonce: string) =>
  `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>${title}</title><style nonce="${nonce}">${STYLE}</style></head>`;

/** Only the page's own nonce-bound style and script; no frames, forms or base URL of anyone else. */
const cspOf = (nonce: string, script: boolean) =>
  [
    "default-src 'none'",
    ...(script ? [`script-src 'nonce-${nonce}'`] : []),
    `style-src 'nonce-${nonce}'`,
    ...(script ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/**
 * The page's script: connect the EIP-1193 wallet, ask the gateway for the approval message of this
 * client and agent (POST /oauth/authorize/message: its own purpose, never a sign-in), have the
 * wallet sign it, post the signature with the consent handle, and follow the answer to the
 * client's redirect URI. Deny posts the handle to POST /oauth/authorize/deny and follows its
 * answer (the client's redirect URI with error=access_denied). Nothing else is loaded.
 */
const SCRIPT = `(() => {
  const data = document.getElementById('consent').dataset;
  const chainId = Number(data.chainId);
  const status = document.getElementById('status');
  const button = document.getElementById('sign');
  const deny = document.getElementById('deny');
  const say = (text, isError) => { status.textContent = text; status.className = isError ? 'error' : ''; };
  const post = async (path, body) => {
    const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error((json.error && json.error.message) || 'HTTP ' + res.status);
    return json;
  };
  const hex = (text) => '0x' + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');
  deny.addEventListener('click', async () => {
    button.disabled = true;
    deny.disabled = true;
    try {
      const done = await post('/oauth/authorize/deny', { handle: data.handle });
      say('Refused: returning to the app.');
      window.location.assign(done.redirectTo);
    } catch (err) {
      say((err && err.message ? err.message : String(err)) + ' Nothing was authorized; you can close this page.', true);
    }
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    deny.disabled = true;
    try {
      if (!window.ethereum) throw new Error('No browser wallet found: install or unlock one, then reload this page.');
      say('Connecting your wallet...');
      const [account] = await window.ethereum.request({ method: 'eth_requestAccounts' });
      if (!account) throw new Error('The wallet shared no account.');
      const approval = await post('/oauth/authorize/message', { clientId: data.clientId, resource: data.resource, walletAddress: account, chainId });
      say('Sign the approval in your wallet...');
      const signature = await window.ethereum.request({ method: 'personal_sign', params: [hex(approval.message), account] });
      say('Checking the signature and the agent\\'s owner...');
      const done = await post('/oauth/authorize', { handle: data.handle, walletAddress: account, chainId, nonce: approval.nonce, signature });
      say('Done: returning to the app.');
      window.location.assign(done.redirectTo);
    } catch (err) {
      // The consent handle is single use once posted: a new attempt starts from a reload.
      say((err && err.message ? err.message : String(err)) + ' Reload this page to try again.', true);
    }
  });
})();`;

/**
 * Who asks, as the page can vouch for it: a metadata-document client by its document's host (the
 * site that serves its `client_id`), a registered client by the name it gave itself, marked so.
 */
export type ConsentClient = { kind: 'document'; url: string; host: string; name?: string } | { kind: 'registered'; name: string };

function clientLines(client: ConsentClient): { who: string; about: string } {
  if (client.kind === 'registered') {
    const name = escapeHtml(client.name);
    return { who: `${name} (unverified)`, about: `This app registered itself; its name <strong>${name}</strong> is not verified.` };
  }
  const host = escapeHtml(client.host);
  const calls =
    client.name === undefined ? '' : ` It calls itself &ldquo;${escapeHtml(client.name)}&rdquo;, which only ${host} vouches for.`;
  return { who: host, about: `This app is identified by its metadata document at <code>${escapeHtml(client.url)}</code>.${calls}` };
}

const DOOR_TEXT: Record<AgentSurface, string> = {
  mcp: 'through its MCP server: ask it, and read and append to its memory',
  a2a: 'through its A2A endpoint (agent to agent): send it messages and read its answers',
};

/** The authorize page: who asks (see `ConsentClient`), for which agent, where the code goes. */
export function authorizePageHtml(input: {
  details: ConsentDescription;
  client: ConsentClient;
  handle: string;
  /** The request's client id and resource, which the approval message names. */
  clientId: string;
  resource: string;
  agent: { collection: Address; tokenId: bigint };
  /** The door the token opens: the MCP server, or the A2A endpoint other agents call. */
  surface: AgentSurface;
  chainId: number;
}): { html: string; csp: string } {
  const { details, agent } = input;
  const nonce = randomNonce();
  const { who, about } = clientLines(input.client);
  const html = `<!doctype html>
<html lang="en">${head(`Authorize ${who}`, nonce)}
<body><main>
<h1>Allow ${who} to use your agent?</h1>
<p><strong>${who}</strong> asks to use agent <strong>#${escapeHtml(String(agent.tokenId))}</strong> of collection <code>${escapeHtml(agent.collection)}</code> ${DOOR_TEXT[input.surface]}, as you, while your wallet owns the agent.</p>
<p>${about} Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>
${details.redirectIsLoopback ? '<p class="warn"><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>' : ''}
<p>Sign the approval with the wallet that owns the agent to allow it, or deny: the app is told you refused.</p>
<div id="consent" data-handle="${escapeHtml(input.handle)}" data-chain-id="${input.chainId}" data-client-id="${escapeHtml(input.clientId)}" data-resource="${escapeHtml(input.resource)}"></div>
<p class="actions"><button id="sign" type="button">Connect wallet and approve</button> <button id="deny" type="button" class="secondary">Deny</button></p>
<p id="status" role="status"></p>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>`;
  const csp = cspOf(nonce, true);
  return { html, csp };
}

/**
 * A request the page cannot send back to its client (unknown client, unregistered redirect URI, no
 * `resource`, a metadata document that failed): the page's own look, on a phone too, with its
 * Content-Security-Policy.
 */
export function authorizeErrorPage(code: string, description: string): { html: string; csp: string } {
  const nonce = randomNonce();
  const html = `<!doctype html>
<html lang="en">${head('Authorization failed', nonce)}
<body><main>
<h1>Authorization failed</h1>
<p class="error"><code>${escapeHtml(code)}</code>: ${escapeHtml(description)}</p>
<p>Nothing was authorized. Start again from the app that sent you here; if it keeps failing, tell its makers what this page says.</p>
</main></body></html>`;
  return { html, csp: cspOf(nonce, false) };
}
