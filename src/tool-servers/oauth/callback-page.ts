/**
 * The page the owner's browser lands on after authorizing a tool server: small, readable on a
 * phone, in the light and the dark scheme, no script, a strict Content-Security-Policy.
 */
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const STYLE = `:root{color-scheme:light dark;--bg:#fff;--fg:#111;--error:#b00020;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e8eb;--error:#ff8a80;--ok:#56d364}}
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:var(--fg);background:var(--bg)}
code{word-break:break-all}.error{color:var(--error)}.ok{color:var(--ok)}`;

function page(title: string, body: string): { html: string; csp: string } {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, csp };
}

export function authorizedPage(connection: string, tools: number): { html: string; csp: string } {
  return page(
    'Tool server authorized',
    `<p class="ok">The gateway may now use <strong>${escapeHtml(connection)}</strong> for your agent: ${tools} tool${tools === 1 ? '' : 's'} ready.</p>
<p>You can close this page.</p>`,
  );
}

export function failedPage(code: string, message: string): { html: string; csp: string } {
  return page(
    'Authorization failed',
    `<p class="error"><code>${escapeHtml(code)}</code>: ${escapeHtml(message)}</p>
<p>Nothing was stored. Start again from the Authorize button of the connection (or <code>POST …/mcp/connection/{id}/authorize</code>).</p>`,
  );
}
