/**
 * The /docs page script: the browser functions of src/reference/browser (type-checked against the DOM
 * by src/reference/browser/tsconfig.json) serialized with `Function.prototype.toString()`, then a call of the
 * entry. No build step and no generated file: the worker bundle carries the compiled functions.
 *
 * This works because the bundler (wrangler's esbuild) renames a function and every reference to
 * it alike, and the browser functions use only their parameters, browser globals and each other.
 * esbuild's keepNames wraps nested named functions in `__name(fn, "name")` (renamed too when the
 * bundle is minified); the page defines that helper, as the bundle spells it, as the identity. test/unit/reference-page.test.ts bundles the page as wrangler does
 * and runs it; test/browser/docs.test.ts runs it in Chromium.
 */
import { entry, functions } from './browser-app.js';

/** The declared name of a serialized function (the bundler may have renamed it). */
export function declaredName(source: string): string {
  const match = /^(?:async\s+)?function\s*\*?\s*([\w$]+)\s*\(/.exec(source);
  if (!match?.[1]) throw new Error(`not a named function declaration: ${source.slice(0, 60)}`);
  return match[1];
}

/**
 * esbuild's keepNames helper as this bundle spells it: `__name`, or a short name once the bundle
 * is minified (the wrangler files set `minify = true`). Read from a probe compiled alongside the
 * browser functions, whose nested arrow the bundler wraps the same way; null when nothing wraps.
 */
function keepNamesHelper(): string | null {
  const probe = function probe() {
    const inner = () => 0;
    return inner;
  };
  return /([\w$]+)\(\s*\(\)\s*=>\s*0\s*,\s*"inner"\s*\)/.exec(Function.prototype.toString.call(probe))?.[1] ?? null;
}

let cached: string | undefined;

/** The page's module script (the same text for every request, so its CSP hash is stable). */
export function docsScript(): string {
  if (cached !== undefined) return cached;
  const sources = functions.map((fn) => {
    const source = Function.prototype.toString.call(fn);
    declaredName(source);
    return source;
  });
  const script = [
    `const ${keepNamesHelper() ?? '__name'} = (fn) => fn;`,
    ...sources,
    `${declaredName(Function.prototype.toString.call(entry))}().catch(() => document.body.setAttribute('data-state', 'error'));`,
  ].join('\n');
  if (/<\/script|<!--/i.test(script)) throw new Error('the docs script contains </script or <!--');
  cached = script;
  return script;
}
