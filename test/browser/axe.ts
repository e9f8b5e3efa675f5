/**
 * axe-core in the browser tests: WCAG 2.1 A and AA and axe's best practices, on the page as it is
 * now, at 1,280 and 360 px wide, in the light and the dark scheme. The pages' CSPs allow no
 * injected script tag, so axe's source is evaluated through the DevTools protocol
 * (`page.evaluate`), which a page's CSP does not govern.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export const WIDTHS = [1280, 360] as const;
export const SCHEMES = ['light', 'dark'] as const;

/** axe's violations on the page as it is now, one line each: rule, impact, help, the first nodes. */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    type Node = { target: unknown[]; failureSummary?: string };
    type Violation = { id: string; impact?: string; help: string; nodes: Node[] };
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const doc = (globalThis as unknown as { document: unknown }).document;
    const { violations } = await axe.run(doc, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return violations.map((v) => {
      const nodes = v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} (${(n.failureSummary ?? '').replace(/\s+/g, ' ').trim()})`);
      return `${v.id} [${v.impact ?? '?'}] ${v.help}: ${v.nodes.length} node(s): ${nodes.join('; ')}`;
    });
  }, TAGS);
}

/**
 * axe at both widths and in both schemes, `label` in front of each violation; the page is left at
 * 1,280 px in `leaveIn` (the scheme the test was using).
 */
export async function axeEverywhere(page: Page, label: string, leaveIn: 'light' | 'dark' = 'dark'): Promise<string[]> {
  const found: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 });
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const v of await axeViolations(page)) found.push(`${label} at ${width} px (${scheme}): ${v}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: leaveIn });
  return found;
}
