/**
 * The dashboard's tool servers page with a server that needs OAuth, in headless Chromium against
 * the whole `npm run dev` stack and a loopback OAuth-protected tool server whose authorization
 * server approves at once (test/support/oauth-toolserver-mini.ts): added with the auth choice
 * OAuth (scopes), the connection shows "authorization required" and its Authorize link (focused,
 * a new tab, rel=noopener); the page is reloaded, so the link is fetched anew with Authorize and
 * followed from the keyboard; the new tab goes through the authorization server to the gateway's
 * callback page ("Tool server authorized"), and the tools page turns the connection ready on its
 * own (its status line says so). Dark and light, 1280 and 360 px, axe clean; no console error,
 * CSP violation or third-party request on the dashboard.
 *
 * Run with `npm run test:browser -- test/browser/dashboard-tools-oauth.test.ts` (not part of `npm test`).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MiniOAuthToolServer, startMiniOAuthToolServer } from '../support/oauth-toolserver-mini';
import { focused, ownerWithAgentIn, screenshots } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;
let server: MiniOAuthToolServer | undefined;

beforeAll(async () => {
  server = await startMiniOAuthToolServer();
  env = await startBrowserStack('dashboard-tools-oauth');
});

afterAll(async () => {
  await env?.stop();
  await server?.close();
});

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

async function openTools(page: Page) {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Tool servers', exact: true }).click();
  await page.getByRole('heading', { name: 'Tool servers', exact: true }).waitFor();
}

describe('a tool server that needs OAuth, on the dashboard', () => {
  it('add with OAuth, Authorize in a new tab through the authorization server and back, the connection turns ready', {
    timeout: 300_000,
  }, async ({ annotate }) => {
    const testnet = env!.stack.testnet;
    const dash = await ownerWithAgentIn(env!.context, env!.devDir, testnet);
    const { page } = dash;
    const url = `${server!.base}/mcp`;
    const host = new URL(server!.base).host;
    await openTools(page);
    await expect.poll(() => mainText(page)).toContain('No tool servers yet');

    // The auth choice OAuth: scopes, an optional client id and secret (an unusable scope is refused in words first).
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Name', { exact: true }).fill('tracker');
    await page.getByLabel('Credential', { exact: true }).selectOption('oauth');
    expect(await page.getByLabel('Client ID').inputValue()).toBe('');
    expect(await page.getByLabel('Client secret').getAttribute('type')).toBe('password');
    await page.getByLabel('Scopes').fill('read "bad');
    await page.getByRole('button', { name: 'Add tool server' }).click();
    await expect.poll(() => mainText(page)).toContain('is not a scope');
    await page.getByLabel('Scopes').fill('read');
    await page.getByRole('button', { name: 'Add tool server' }).click();
    await expect.poll(() => mainText(page)).toContain('Added tracker: authorize it to use its tools.');

    const item = page.getByRole('listitem', { name: 'Tool server tracker' });
    await expect.poll(() => item.textContent()).toContain('authorization required');
    expect(await item.textContent()).toContain('auth OAuth, scopes read, not authorized yet');
    const fromAdd = item.getByRole('link', { name: `Authorize at ${host} (opens in a new tab)` });
    await fromAdd.waitFor();
    expect(await fromAdd.getAttribute('target')).toBe('_blank');
    expect(await fromAdd.getAttribute('rel')).toContain('noopener');
    expect(new URL((await fromAdd.getAttribute('href')) ?? '').origin).toBe(server!.base);
    await expect.poll(() => focused(page)).toBe(`A Authorize at ${host} (opens in a new tab)`);
    await screenshots(page, 'tools-oauth-pending', annotate);

    // After a reload the page has no link: Authorize asks for a fresh one, focus goes to it, Enter opens it.
    await page.reload({ waitUntil: 'load' });
    await openTools(page).catch(() => undefined);
    const again = page.getByRole('listitem', { name: 'Tool server tracker' });
    await again.getByRole('button', { name: 'Authorize' }).click();
    const link = again.getByRole('link', { name: `Authorize at ${host} (opens in a new tab)` });
    await link.waitFor();
    await expect.poll(() => focused(page)).toBe(`A Authorize at ${host} (opens in a new tab)`);
    const approvals = server!.approvals();
    const [tab] = await Promise.all([env!.context.waitForEvent('page'), page.keyboard.press('Enter')]);
    await tab.getByRole('heading', { name: 'Tool server authorized' }).waitFor({ timeout: 30_000 });
    expect(new URL(tab.url()).pathname).toBe('/oauth/callback');
    expect(await tab.textContent('main')).toContain('1 tool ready');
    expect(await tab.evaluate(() => (globalThis as unknown as { opener: unknown }).opener)).toBeNull();
    expect(server!.approvals()).toBe(approvals + 1);
    await tab.close();

    // Back on the dashboard: Check again is there, and the page finds the connection ready on its own.
    await page.bringToFront();
    await expect.poll(() => mainText(page), { timeout: 30_000 }).toContain('Authorized tracker: 1 tool, ready.');
    await expect.poll(() => again.textContent()).toContain('ready');
    expect(await again.textContent()).not.toContain('authorization required');
    expect(await again.textContent()).toContain('1 tool');
    expect(await again.getByRole('link').count()).toBe(0);
    await again.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => again.textContent()).toMatch(/Reachable: tools\/list answered in \d+ ms/);
    await screenshots(page, 'tools-oauth-ready', annotate);
    expect(dash.problems).toEqual([]);
    await page.close();
  });
});
