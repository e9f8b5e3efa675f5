/**
 * The owner's dashboard at /app (DESIGN §16) in headless Chromium against the whole `npm run dev`
 * stack, with an injected test wallet (test/browser/wallet.ts) on another chain than the
 * deployment's: log in (the page asks the wallet to switch), pick an agent minted with `npm run
 * mint`, hydrate a JSONL file and read the messages, chat with the stand-in model (a tool call
 * shown, a reply stopped), log out; a wallet that refuses to switch is told so. Every page in
 * dark mode at 1280 and 360 px, attached as screenshots; no console error, CSP violation or
 * third-party request anywhere.
 *
 * Run with `npm run test:browser -- test/browser/dashboard.test.ts` (not part of `npm test`).
 */
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardPage, mintWithNpm, openDashboard, screenshots } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;

beforeAll(async () => {
  env = await startBrowserStack('dashboard');
});

afterAll(async () => {
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

/** Logs in through the page: the login button, the wallet switched and signed, the picker shown. */
async function logIn({ page }: DashboardPage) {
  await page.getByRole('button', { name: 'Connect wallet and log in' }).click();
  await page.getByRole('heading', { name: 'Pick an agent' }).waitFor({ timeout: 30_000 });
}

async function pickAgent({ page }: DashboardPage, collection: string, tokenId: string) {
  await page.getByLabel('Collection address').fill(collection);
  await page.getByLabel('Token id').fill(tokenId);
  await page.getByRole('button', { name: 'Open agent' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor({ timeout: 30_000 });
}

describe('the dashboard at /app, in headless Chromium with an injected wallet', () => {
  it('log in (the wallet asked to switch chain), pick an agent minted with npm run mint, log out', async ({ annotate }) => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const tokenId = await mintWithNpm(env!.devDir, wallet.address);
    const collection = getAddress(testnet().collection);
    const dash = await openDashboard(env!.context, testnet().baseUrl, wallet);
    const { page } = dash;
    const res = await page.goto(appUrl(), { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await screenshots(page, 'login', annotate);

    await logIn(dash);
    const walletChain = await page.evaluate(async () => {
      const wallet = (globalThis as unknown as { ethereum: { request(a: { method: string }): Promise<unknown> } }).ethereum;
      return Number(await wallet.request({ method: 'eth_chainId' }));
    });
    expect(walletChain).toBe(testnet().chainId);
    // The form says what is wrong, in words, before anything is sent; the values stay.
    await page.getByLabel('Collection address').fill('0x123');
    await page.getByLabel('Token id').fill('007');
    await page.getByRole('button', { name: 'Open agent' }).click();
    await expect.poll(() => page.textContent('main')).toContain('0x followed by 40 hexadecimal digits');
    expect(await page.textContent('main')).toContain('without sign or leading zeros');
    expect(await page.getByLabel('Token id').inputValue()).toBe('007');
    await screenshots(page, 'picker-errors', annotate);
    // The gateway's refusal, with its code: a token this wallet does not own.
    await page.getByLabel('Collection address').fill(collection);
    await page.getByLabel('Token id').fill(String(BigInt(tokenId) + 1000n));
    await page.getByRole('button', { name: 'Open agent' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/agent_not_found|not_owner|forbidden/);
    expect(dash.refusals).toEqual([expect.stringMatching(/^(403|404) GET \/agent\//)]);

    await pickAgent(dash, collection, tokenId);
    await screenshots(page, 'shell', annotate);
    // The tab keeps the login across a reload; logout forgets it.
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('a wallet that refuses to switch to the deployment chain is told so, with the code', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const dash = await openDashboard(env!.context, testnet().baseUrl, wallet, { refuseSwitch: true });
    await dash.page.goto(appUrl(), { waitUntil: 'load' });
    await dash.page.getByRole('button', { name: 'Connect wallet and log in' }).click();
    const alert = dash.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('refused to switch');
    expect(await alert.textContent()).toContain('wrong_chain');
    expect(dash.problems).toEqual([]);
    await dash.page.close();
  });
});
