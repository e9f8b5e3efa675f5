import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../src/reference/browser-app.js';
import { bundledReferencePage, inlineScript } from '../support/docs-page';

let referencePage: Awaited<ReturnType<typeof bundledReferencePage>>;
beforeAll(async () => {
  referencePage = await bundledReferencePage();
});
const page = async (title = 'Agent Gateway API', specUrl = '/openapi.json') => referencePage({ specUrl, title });
const withoutScript = (html: string) => html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '');
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const BROWSER_DIR = path.join(import.meta.dirname, '../../src/reference/browser');

describe('referencePage: static output', () => {
  it('references no external resources', async () => {
    const { html } = await page();
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/@import/i);
    expect(withoutScript(html)).not.toMatch(/url\(/i);
    expect(html).toContain('<link rel="icon" href="data:,">');
    for (const m of html.matchAll(/\s(?:src|href|action|srcset)\s*=\s*["']?([^"'\s>]*)/gi)) {
      const target = m[1]!;
      expect(target === 'data:,' || target.startsWith('#') || /^\/(?!\/)/.test(target), `off-origin reference ${target}`).toBe(true);
    }
  });

  it('escapes the title and the spec URL for HTML', async () => {
    const { html } = await page('<script>alert("x")</script> & co', '/openapi.json?a="><script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(html).toContain('data-spec-url="/openapi.json?a=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).not.toContain('<script>alert');
    expect(html.match(/<script\b/gi)).toHaveLength(1);
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
  });

  it('has a CSP that allows exactly its inline script and style by hash', async () => {
    const { html, csp } = await page();
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `script-src ${sha256(inlineScript(html))}`,
      `style-src ${sha256(style)}`,
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    expect(withoutScript(html)).not.toMatch(/\sstyle\s*=/i);
  });

  it('has no inline event handlers, no dynamic code evaluation, no console output', async () => {
    const { html } = await page();
    expect(withoutScript(html)).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
    const script = inlineScript(html);
    expect(script).not.toMatch(/setAttribute\(\s*['"](on|style)/i);
    expect(script).not.toMatch(/\.on[a-z]+\s*=[^=]/);
    expect(script).not.toMatch(/new\s+Function|\beval\s*\(|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    // Code samples print with console.log: strings are page text, not calls.
    const code = script.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
    expect(code).not.toMatch(/\bconsole\./);
  });

  it('ships a syntactically valid module script that calls its entry', async () => {
    const script = inlineScript((await page('API', '/x</script>')).html);
    expect(() => transformSync(script, { loader: 'js', format: 'esm' })).not.toThrow();
    expect(script).toMatch(/\ndocsMain\d*\(\)\.catch\(/);
  });

  it('serializes every function of src/reference/browser, and the browser code keeps no module-level values', () => {
    const declared: string[] = [];
    for (const file of readdirSync(BROWSER_DIR).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(path.join(BROWSER_DIR, file), 'utf8');
      for (const m of source.matchAll(/^(?:export\s+)?(?:async\s+)?function\s+([\w$]+)/gm)) declared.push(m[1]!);
      const values = [...source.matchAll(/^(?:export\s+)?(?:const|let|var|class)\s+([\w$]+)/gm)].map((m) => `${file}: ${m[1]}`);
      expect(values.filter((v) => v !== 'index.ts: entry' && v !== 'index.ts: functions')).toEqual([]);
    }
    expect(functions.map((fn) => fn.name).sort()).toEqual(declared.sort());
  });
});
