/**
 * Helpers of the dashboard's browser tests: a page of the dashboard with the test wallet, what
 * went wrong on it (console errors, page errors, CSP violations, requests to another origin),
 * `npm run mint` against the browser stack, and screenshots attached to the test output.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { getAddress } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { TestContext } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/migrate';
import { axeEverywhere } from './axe';
import { installTestWallet, type TestWalletOptions } from './wallet';

export interface DashboardPage {
  page: Page;
  /** Console errors, page errors, CSP violations and third-party requests seen so far. */
  problems: string[];
  /**
   * Answers >= 400 (`404 GET /agent/...`): a refusal the test provoked shows here, and Chromium's
   * own console line about it ("Failed to load resource") is not counted among the problems.
   */
  refusals: string[];
}

export async function openDashboard(
  context: BrowserContext,
  baseUrl: string,
  wallet: PrivateKeyAccount,
  options: TestWalletOptions & { colorScheme?: 'dark' | 'light' } = {},
): Promise<DashboardPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  const refusals: string[] = [];
  const origin = new URL(baseUrl).origin;
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource: the server responded with a status of')) {
      problems.push(`console: ${msg.text()}`);
    }
  });
  page.on('response', (res) => {
    if (res.status() >= 400) refusals.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  page.on('pageerror', (err) => problems.push(`page: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol.startsWith('http') && url.origin !== origin) problems.push(`third-party request: ${req.url()}`);
  });
  await page.exposeFunction('__cspViolation', (text: string) => problems.push(`csp: ${text}`));
  await page.addInitScript(() => {
    type Violation = { violatedDirective: string; blockedURI: string };
    const scope = globalThis as unknown as {
      addEventListener(type: string, listener: (e: Violation) => void): void;
      __cspViolation: (t: string) => void;
    };
    scope.addEventListener('securitypolicyviolation', (e) => scope.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await installTestWallet(page, wallet, options);
  await page.emulateMedia({ colorScheme: options.colorScheme ?? 'dark' });
  await page.setViewportSize({ width: 1280, height: 900 });
  return { page, problems, refusals };
}

/** `npm run mint -- --to <owner>` on the stack of `devDir`: the token id it minted. */
export async function mintWithNpm(devDir: string, owner: string): Promise<string> {
  const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'mint', '--', '--to', owner], {
    cwd: REPO_ROOT,
    env: { ...process.env, DEV_DIR: devDir },
  });
  const tokenId = /AGENT_TOKEN_ID=(\d+)/.exec(stdout)?.[1];
  if (!tokenId) throw new Error(`npm run mint printed no token id: ${stdout}`);
  return tokenId;
}

/** Where the screenshots go before vitest copies them into its attachments (gitignored). */
const SHOTS_DIR = path.join(REPO_ROOT, '.dashboard-screenshots');

/**
 * Full-page screenshots at 1280 and 360 px, attached to the running test; then axe-core at both
 * widths in both schemes (./axe.ts): any violation, or a page that scrolls sideways, fails the test.
 */
export async function screenshots(page: Page, name: string, annotate: TestContext['annotate']): Promise<void> {
  await mkdir(SHOTS_DIR, { recursive: true });
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 });
    const file = path.join(SHOTS_DIR, `${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    if (overflow > 0) throw new Error(`${name} at ${width} px scrolls sideways by ${overflow} px`);
    await annotate(`${name} at ${width} px (dark)`, 'screenshot', { path: file, contentType: 'image/png' });
    console.log(`screenshot: ${path.relative(REPO_ROOT, file)}`);
  }
  const violations = await axeEverywhere(page, name);
  if (violations.length > 0) throw new Error(`axe-core found ${violations.length} violation(s):\n${violations.join('\n')}`);
}

/** Logs in through the page: the login button, the wallet switched and signed, the picker shown. */
export async function logIn({ page }: DashboardPage): Promise<void> {
  await page.getByRole('button', { name: 'Connect wallet and log in' }).click();
  await page.getByRole('heading', { name: 'Pick an agent' }).waitFor({ timeout: 30_000 });
}

/** Picks an agent in the form; resolves when the pages' nav is shown. */
export async function pickAgent({ page }: DashboardPage, collection: string, tokenId: string): Promise<void> {
  await page.getByLabel('Collection address').fill(collection);
  await page.getByLabel('Token id').fill(tokenId);
  await page.getByRole('button', { name: 'Open agent' }).click();
  // The pages' nav, or the picker's error said in words (the test then fails with what the page said).
  const nav = page.getByRole('navigation', { name: 'Pages' });
  const refused = page.getByRole('alert');
  await nav.or(refused).first().waitFor({ timeout: 60_000 });
  if (!(await nav.isVisible())) throw new Error(`the picker refused the agent: ${await refused.allTextContents()}`);
}

/** Opens one of the agent's pages from the pages' nav; resolves when its heading is shown. */
export async function openTab(page: Page, title: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
}

/** Clicks Save settings on the LLM settings page; resolves once the gateway answered the save with 200. */
export async function saveSettings(page: Page): Promise<void> {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/llm/settings') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Save settings' }).click(),
  ]);
  if (answer.status() !== 200) throw new Error(`saving the LLM settings answered ${answer.status()}: ${await answer.text()}`);
}

/** A fresh wallet with an agent minted by `npm run mint`, logged in and its agent picked in a new page. */
export async function ownerWithAgentIn(
  context: BrowserContext,
  devDir: string,
  deployment: { baseUrl: string; collection: string },
): Promise<DashboardPage & { wallet: PrivateKeyAccount; tokenId: string }> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const tokenId = await mintWithNpm(devDir, wallet.address);
  const dash = await openDashboard(context, deployment.baseUrl, wallet);
  await dash.page.goto(`${new URL(deployment.baseUrl).origin}/app`, { waitUntil: 'load' });
  await logIn(dash);
  await pickAgent(dash, getAddress(deployment.collection), tokenId);
  return { ...dash, wallet, tokenId };
}

/** The focused element: its tag and text (what a screen reader would go on from), `BODY` when focus was lost. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string | null } | null } })
      .document.activeElement;
    return `${active?.tagName ?? 'none'} ${(active?.textContent ?? '').trim()}`;
  });

/**
 * The contrast of the focused element's outline against the page and the cards (the smaller of
 * the two): WCAG 1.4.11 asks 3:1 of a focus indicator.
 */
export const focusRingContrast = (page: Page) =>
  page.evaluate(() => {
    const scope = globalThis as unknown as {
      document: { activeElement: unknown; documentElement: unknown };
      getComputedStyle(e: unknown): { outlineColor: string; outlineStyle: string; getPropertyValue(name: string): string };
    };
    const rgb = (css: string) => {
      const hex = /^#([0-9a-f]{6})$/i.exec(css.trim())?.[1];
      if (hex) return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
      return (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? '0,0,0').split(',').slice(0, 3).map(Number);
    };
    const luminance = (css: string) => {
      const [r, g, b] = rgb(css).map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const ratio = (a: string, b: string) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    };
    const ring = scope.getComputedStyle(scope.document.activeElement);
    const root = scope.getComputedStyle(scope.document.documentElement);
    if (ring.outlineStyle === 'none') return 0;
    return Math.min(ratio(ring.outlineColor, root.getPropertyValue('--bg')), ratio(ring.outlineColor, root.getPropertyValue('--card')));
  });
