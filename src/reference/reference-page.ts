/**
 * The interactive API reference served at `GET /docs`: one HTML page with an inline style sheet
 * and an inline module script (src/reference/script.ts), no external resources, and a
 * Content-Security-Policy that allows exactly those two by their SHA-256 hashes.
 *
 * The script fetches the OpenAPI document at `specUrl` (the page's `data-spec-url`) and renders
 * it; text from the document is inserted as text nodes, never as HTML.
 */
import { guidesNote } from './guides';
import { docsScript } from './script';
import { DOCS_CSS } from './styles';

export interface ReferencePage {
  html: string;
  /** The Content-Security-Policy header value for `html`. */
  csp: string;
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

async function sha256Source(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
}

let policy: Promise<string> | undefined;

/** Script and style are the same for every page, so one policy serves them all. */
function contentSecurityPolicy(): Promise<string> {
  policy ??= Promise.all([sha256Source(docsScript()), sha256Source(DOCS_CSS)]).then(([script, style]) =>
    [
      "default-src 'none'",
      `script-src ${script}`,
      `style-src ${style}`,
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
  return policy;
}

export async function referencePage(options: { specUrl: string; title: string }): Promise<ReferencePage> {
  const title = escapeHtml(options.title);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${DOCS_CSS}</style>
</head>
<body data-state="loading" data-spec-url="${escapeHtml(options.specUrl)}">
<a class="skip" href="#operations">Skip to the operations</a>
<div class="layout">
<aside>
<p class="brand">API reference</p>
<div class="search" role="search">
<label for="search">Search operations</label>
<input id="search" type="search" autocomplete="off" spellcheck="false" placeholder="summary, path, operationId, tag ( / )" aria-describedby="search-count">
<p id="search-count" aria-live="polite"></p>
</div>
<p id="no-match" hidden>No operation matches.</p>
<nav id="nav" aria-label="Operations"></nav>
</aside>
<div>
<header>
<div class="headbar"><div><h1 id="title">${title}</h1><span class="version" id="version"></span></div>
<button type="button" class="secondary theme" id="theme" aria-label="Theme: auto, follows the system" title="Colour theme">Theme: auto</button></div>
<p class="desc" id="description"></p>
${guidesNote()}
<div class="creds" id="creds">
<div class="token" data-scheme="bearer">
<label for="token">Bearer token <code>bearer</code></label>
<input id="token" class="mono" type="password" autocomplete="off" spellcheck="false" placeholder="paste a token from POST /auth/jwt/finish">
<button type="button" class="secondary" id="token-clear">Clear</button>
</div>
<p class="note">Credentials are kept in this tab only (sessionStorage) and sent only by Try it, as Authorization: Bearer, on operations that accept them.</p>
</div>
</header>
<main>
<div id="status"><p class="note">Loading API specification...</p></div>
<div id="operations"></div>
</main>
</div>
</div>
<script type="module">${docsScript()}</script>
</body>
</html>
`;
  return { html, csp: await contentSecurityPolicy() };
}
