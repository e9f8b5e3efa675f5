/**
 * The price of a paid reply in the dashboard, in headless Chromium against the whole `npm run dev`
 * stack: the owner's LLM settings have a "Paid replies" section (the paid route's URL, a price,
 * the memory tools); a price saved shows again after a reload and is what GET …/llm/settings
 * answers; a price out of bounds is said in words and not sent; the usage page says what paid
 * replies earned. A delegate the owner lets administer the agent sees the settings without the
 * price. Screenshots and axe-core at 1280 and 360 px.
 *
 * Run with `npm run test:browser -- test/browser/dashboard-pricing.test.ts` (not part of `npm test`).
 */
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWallet, newWallet } from '../support/chain';
import { delegateERC721 } from '../support/delegation';
import type { DeploymentInfo } from '../support/stack-info';
import { type DashboardPage, logIn, mintWithNpm, openDashboard, pickAgent, screenshots, openTab, saveSettings } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;

beforeAll(async () => {
  env = await startBrowserStack('pricing');
});

afterAll(async () => {
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

describe('the price of a paid reply, in headless Chromium', () => {
  it('the owner sets a price and the memory tools; reload and the API show them; a delegate sees no price', { timeout: 300_000 }, async ({
    annotate,
  }) => {
    const collection = getAddress(testnet().collection);
    const cold = await fundedWallet(testnet().rpcUrl);
    const hot = newWallet();
    const tokenId = await mintWithNpm(env!.devDir, cold.address);
    await delegateERC721(testnet() as DeploymentInfo, cold, hot.address, collection as Address, BigInt(tokenId));
    const llm = env!.stack.llm;
    if (!llm) throw new Error('the stack runs no stand-in model (DEV_LLM=0)');

    const owner: DashboardPage = await openDashboard(env!.context, testnet().baseUrl, cold);
    const { page } = owner;
    await page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(owner);
    await pickAgent(owner, collection, tokenId);
    await openTab(page, 'LLM settings', 'LLM settings');
    const paid = page.getByRole('group', { name: 'Paid replies' });
    await paid.waitFor();
    expect(await paid.textContent()).toContain(`${new URL(testnet().baseUrl).origin}/agent/${collection}/${tokenId}/paid/ask`);
    expect(await page.getByLabel('Price per reply (USD)').inputValue()).toBe('');
    await page.getByLabel('Provider').selectOption(llm.provider);
    await page.getByLabel('Model').fill(llm.model);
    await page.getByLabel('Base URL').fill(llm.baseUrl);
    await page.getByLabel('Delegates may').selectOption('admin');

    // Out of bounds: said in words, nothing sent.
    await page.getByLabel('Price per reply (USD)').fill('250');
    let posted = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/llm/settings') && r.method() === 'POST') posted++;
    });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('A price is US dollars from 0.001 to 100').waitFor();
    expect(posted).toBe(0);

    await page.getByLabel('Price per reply (USD)').fill('0.02');
    await page.getByLabel('Let paid replies search memory').check();
    await saveSettings(page);
    await screenshots(page, 'pricing-owner', annotate);

    const [read] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/llm/settings') && r.request().method() === 'GET'),
      page.reload({ waitUntil: 'load' }),
    ]);
    expect(((await read.json()) as { pricing: unknown }).pricing).toEqual({ askUsd: '0.02', memoryTools: true });
    await expect.poll(() => page.getByLabel('Price per reply (USD)').inputValue()).toBe('0.02');
    expect(await page.getByLabel('Let paid replies search memory').isChecked()).toBe(true);

    // The usage page says what paid replies earned (nothing yet).
    await openTab(page, 'Usage', 'Usage');
    await page.getByText('Paid replies earned 0 USD in USDC in this range').waitFor();
    expect(await page.getByRole('columnheader', { name: 'Paid (USD)' }).count()).toBe(1);

    // The delegate administers the agent but never sees or sends the price.
    const delegate: DashboardPage = await openDashboard(env!.context, testnet().baseUrl, hot);
    await delegate.page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(delegate);
    await pickAgent(delegate, collection, tokenId);
    await openTab(delegate.page, 'LLM settings', 'LLM settings');
    await expect.poll(() => delegate.page.getByLabel('Model').inputValue()).toBe(llm.model);
    expect(await delegate.page.getByRole('group', { name: 'Paid replies' }).count()).toBe(0);
    const [saved] = await Promise.all([
      delegate.page.waitForRequest((r) => r.url().endsWith('/llm/settings') && r.method() === 'POST'),
      saveSettings(delegate.page),
    ]);
    expect(saved.postDataJSON()).not.toHaveProperty('pricing');
    await screenshots(delegate.page, 'pricing-delegate', annotate);

    expect(owner.problems).toEqual([]);
    expect(delegate.problems).toEqual([]);
    await page.close();
    await delegate.page.close();
  });
});
