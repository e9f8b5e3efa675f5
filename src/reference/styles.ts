/** Colours of the light theme, then the dark one (by prefers-color-scheme, or the page's toggle). */
const LIGHT =
  '--fg:#1c1e21;--muted:#5c6370;--line:#e3e6ea;--bg:#f7f8fa;--card:#fff;--accent:#0b63ce;--code:#1e222a;' +
  '--codefg:#e6e9ef;--hover:#eef2f7;--chip:#f1f3f5;--field:#fff;--field-line:#cfd4da;--path:#3a3f47;--lock:#fff8c5;' +
  '--type:#8250df;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--pre:#f6f8fa;--errbg:#ffebe9;--errfg:#82071e';
const DARK =
  '--fg:#e6e9ef;--muted:#9aa4b2;--line:#30363d;--bg:#0d1117;--card:#161b22;--accent:#58a6ff;--code:#0b0f14;' +
  '--codefg:#e6e9ef;--hover:#21262d;--chip:#21262d;--field:#0d1117;--field-line:#3d444d;--path:#c9d1d9;' +
  '--lock:#3b2e00;--type:#d2a8ff;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--pre:#0d1117;--errbg:#3c1618;' +
  '--errfg:#ffdcd7';

/** The /docs page's style sheet (inline, allowed by its hash in the page's CSP). */
export const DOCS_CSS = `
*{box-sizing:border-box}
:root{color-scheme:light;${LIGHT}}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){color-scheme:dark;${DARK}}}
:root[data-theme=dark]{color-scheme:dark;${DARK}}
html{scroll-padding-top:12px}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.mono,textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
a{color:var(--accent)}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:6px 10px;z-index:10}
.layout{display:grid;grid-template-columns:290px minmax(0,1fr);min-height:100vh}
aside{position:sticky;top:0;height:100vh;overflow:auto;background:var(--card);border-right:1px solid var(--line);padding:14px 10px}
.brand{font-weight:700;font-size:15px;padding:2px 8px 10px;margin:0}
.search{padding:0 6px 8px}
.search label{display:block;font-size:12px;color:var(--muted);margin-bottom:3px}
.search input{width:100%}
#search-count{font-size:12px;color:var(--muted);margin:4px 2px 0}
#no-match{font-size:13px;color:var(--muted);padding:6px 8px}
aside h2{font-size:11px;letter-spacing:.06em;text-transform:uppercase;color:var(--muted);margin:14px 8px 4px}
aside ul{list-style:none;margin:0;padding:0}
aside a{display:flex;gap:8px;align-items:center;padding:4px 8px;border-radius:6px;color:inherit;text-decoration:none;font-size:13.5px}
aside a{align-items:flex-start}
aside a:hover,aside a:focus-visible{background:var(--hover)}
aside a.current{background:var(--hover);box-shadow:inset 2px 0 var(--accent)}
.navsum{min-width:0;overflow-wrap:anywhere}
aside .method{min-width:46px;font-size:10px}
header{background:var(--card);border-bottom:1px solid var(--line);padding:18px 28px}
header h1{margin:0 8px 4px 0;font-size:24px;display:inline}
.version{background:var(--chip);border-radius:10px;padding:1px 8px;font-size:12px;vertical-align:middle}
.desc{white-space:pre-wrap;color:var(--muted);margin:6px 0}
.creds{margin-top:12px}
.token{margin-top:6px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.token label{min-width:170px}
.token input{flex:1;min-width:200px;max-width:520px}
.creds .note{margin:4px 0 0}
.headbar{display:flex;justify-content:space-between;align-items:flex-start;gap:12px}
.theme{flex:none}
input,textarea,select{padding:6px 9px;border:1px solid var(--field-line);border-radius:6px;background:var(--field);font-size:14px;color:var(--fg)}
textarea{width:100%}
button{padding:6px 14px;border:1px solid #1a7f37;border-radius:6px;background:#1a7f37;color:#fff;cursor:pointer;font-size:14px}
button.secondary{background:var(--field);color:var(--fg);border-color:var(--field-line)}
main{padding:8px 28px 40px;min-width:0}
.taghead{font-size:20px;margin:26px 0 2px}
.op{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin:14px 0 22px}
.ophead h3{margin:0;font-size:18px}
.oppath{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:6px 0 0}
.path{overflow-wrap:anywhere;color:var(--path)}
.method{display:inline-block;min-width:54px;text-align:center;border-radius:4px;padding:0 6px;font:700 11px/19px ui-monospace,monospace;color:#fff;background:#6e7781;flex:none}
.m-get{background:#0b63ce}.m-post{background:#1a7f37}.m-put{background:#9a6700}.m-patch{background:#8250df}.m-delete{background:#cf222e}
.lock,.opid{font-size:12px;border-radius:10px;padding:0 8px}
.lock{background:var(--lock);border:1px solid #d4a72c}
.opid{background:var(--hover);font-family:ui-monospace,monospace}
.opbody{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px;margin-top:8px}
h4{margin:16px 0 6px;font-size:14px}
h5{margin:10px 0 4px;font-size:13px}
.pname{font-weight:600}
.snode{margin-left:14px}
.srow{display:inline-flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.type{color:var(--type);font-family:ui-monospace,monospace;font-size:12px}
.req{color:var(--bad);font-size:11px;font-weight:600;margin-left:6px}
.chip{background:var(--chip);border-radius:4px;padding:0 5px;font-size:12px;overflow-wrap:anywhere}
.sdesc,.note{color:var(--muted);font-size:13px;white-space:pre-wrap}
.resp{border-left:3px solid var(--line);padding:2px 0 2px 10px;margin:8px 0}
.status{font-weight:700;font-family:ui-monospace,monospace}
.s2{color:var(--ok)}.s4{color:var(--warn)}.s5{color:var(--bad)}
.stream{display:inline-block;margin:4px 0;font-size:12px;border-radius:10px;padding:0 8px;background:var(--hover);border:1px solid var(--line)}
.events{list-style:none;margin:6px 0;padding:0}
.events li{border-left:3px solid var(--accent);margin:4px 0;padding:2px 0 2px 8px}
.events pre{margin:2px 0 0;max-height:160px}
.evname{font:600 12px ui-monospace,monospace}
.opside .code,.result pre{margin:0 0 8px}
.opside{min-width:0}
[role=tablist]{display:flex;gap:2px;border-bottom:1px solid var(--line);margin-bottom:6px;flex-wrap:wrap}
.tab{background:none;border:0;border-bottom:2px solid transparent;border-radius:0;color:var(--muted);padding:4px 10px;font-size:13px}
.tab[aria-selected=true]{color:var(--fg);border-bottom-color:var(--accent);font-weight:600}
.codebar{display:flex;justify-content:space-between;align-items:center;background:#2b303b;color:#aab2c0;border-radius:8px 8px 0 0;padding:4px 6px 4px 12px;font-size:12px}
.code pre{background:var(--code);color:var(--codefg);border:0;border-radius:0 0 8px 8px;padding:12px;overflow:auto;max-height:360px;margin:0}
.copy{padding:1px 8px;font-size:12px;background:#3a404c;color:#e6e9ef;border-color:#4a5160}
.params{list-style:none;margin:0;padding:0}
.param{border-bottom:1px solid var(--line);padding:8px 0}
.param .srow{margin:2px 0}
.pin{font-size:12px;color:var(--muted)}
pre{background:var(--pre);border:1px solid var(--line);border-radius:6px;padding:8px;overflow:auto;max-height:420px;margin:6px 0}
.try{margin:10px 0 14px;border:1px solid var(--line);border-radius:8px;padding:8px 12px;background:var(--card)}
.try summary{cursor:pointer;font-weight:600;color:var(--accent)}
.try[open] summary{margin-bottom:6px}
.field{display:grid;grid-template-columns:minmax(120px,40%) minmax(0,1fr);gap:8px;margin:6px 0;align-items:center}
.blabel{display:block;font-weight:600;font-size:13px;margin:10px 0 4px}
.error{background:var(--errbg);border:1px solid #ff8182;color:var(--errfg);border-radius:6px;padding:10px 14px;margin:12px 0}
[hidden]{display:none!important}
@media (max-width:1100px){.opbody{grid-template-columns:minmax(0,1fr)}}
@media (max-width:800px){.layout{grid-template-columns:1fr}aside{position:static;height:auto;border-right:0;border-bottom:1px solid var(--line)}.field{grid-template-columns:1fr}main,header{padding:12px}}
`;
