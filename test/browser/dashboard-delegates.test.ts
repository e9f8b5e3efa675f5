/**
 * Delegates in the dashboard, in headless Chromium against the whole `npm run dev` stack (its
 * chains hold our stand-in of delegate.xyz v2's registry): a cold wallet's agent, delegated to a
 * hot wallet. The owner sees and saves the access choice in the LLM settings; the hot wallet's
 * picker lists the agent "as delegate", the header says so, the memory opens, and the pages beyond
 * its reach say why (usage always; LLM settings until the owner lets delegates administer, then
 * the settings without the access choice). A renter (ERC-4907) of another agent: the header says
 * so, and the settings and audit pages say why not. Screenshots and axe-core at 1280 and 360 px.
 *
 * Run with `npm run test:browser -- test/browser/dashboard-delegates.test.ts` (not part of `npm test`).
 */
import type { Page } from 'playwright-core';
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWallet, newWallet } from '../support/chain';
import { chainTime, delegateERC721, mintRentable, rent } from '../support/delegation';
import type { DeploymentInfo } from '../support/stack-info';
import { type DashboardPage, logIn, mintWithNpm, openDashboard, pickAgent, screenshots, openTab, saveSettings } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;

beforeAll(async () => {
  env = await startBrowserStack('delegates');
});

afterAll(async () => {
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

describe('an agent used by its owner’s delegate, in headless Chromium', () => {
  it('the owner’s access choice, the delegate’s picker entry, and the pages beyond its reach', { timeout: 300_000 }, async ({
    annotate,
  }) => {
    const collection = getAddress(testnet().collection);
    const cold = await fundedWallet(testnet().rpcUrl);
    const hot = newWallet();
    const tokenId = await mintWithNpm(env!.devDir, cold.address);
    await delegateERC721(testnet() as DeploymentInfo, cold, hot.address, collection as Address, BigInt(tokenId));

    // The owner: the access choice is on the LLM settings page (defaults use and use); saved as "use" / "none".
    const owner: DashboardPage = await openDashboard(env!.context, testnet().baseUrl, cold);
    await owner.page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(owner);
    await pickAgent(owner, collection, tokenId);
    await openTab(owner.page, 'LLM settings', 'LLM settings');
    const llm = env!.stack.llm;
    if (!llm) throw new Error('the stack runs no stand-in model (DEV_LLM=0)');
    await owner.page.getByRole('group', { name: 'Who else may use this agent' }).waitFor();
    expect(await owner.page.getByLabel('Delegates may').inputValue()).toBe('use');
    expect(await owner.page.getByLabel('Renters may').inputValue()).toBe('use');
    await owner.page.getByLabel('Provider').selectOption(llm.provider);
    await owner.page.getByLabel('Model').fill(llm.model);
    await owner.page.getByLabel('Base URL').fill(llm.baseUrl);
    await owner.page.getByLabel('Renters may').selectOption('none');
    await saveSettings(owner.page);
    await owner.page.reload({ waitUntil: 'load' });
    await owner.page.getByRole('heading', { name: 'LLM settings', exact: true }).waitFor();
    await expect.poll(() => owner.page.getByLabel('Renters may').inputValue()).toBe('none');
    expect(await owner.page.getByLabel('Delegates may').inputValue()).toBe('use');
    await screenshots(owner.page, 'delegates-owner-access', annotate);

    // The delegate: its picker lists the agent as a delegate's, with the owner.
    const delegate: DashboardPage = await openDashboard(env!.context, testnet().baseUrl, hot);
    const { page } = delegate;
    await page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(delegate);
    await page.getByLabel('Collection address').fill(collection);
    const entry = page.getByRole('button', { name: `#${tokenId} as delegate of ${cold.address.slice(0, 6)}…${cold.address.slice(-4)}` });
    await entry.waitFor();
    expect(await page.getByRole('group', { name: 'Agents you may use as a delegate' }).isVisible()).toBe(true);
    expect(await mainText(page)).toContain('Your wallet holds no token of this collection.');
    await screenshots(page, 'delegates-picker', annotate);
    await entry.click();
    expect(await page.getByLabel('Token id').inputValue()).toBe(tokenId);
    await page.getByRole('button', { name: 'Open agent' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor({ timeout: 30_000 });
    await page.getByText('· as delegate').waitFor();
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();

    // Usage is the owner's alone; LLM settings need the owner's leave to administer.
    await openTab(page, 'Usage', 'Usage');
    expect(await mainText(page)).toContain("Usage is for the agent's owner only: as its delegate this wallet cannot see it.");
    await openTab(page, 'LLM settings', 'LLM settings');
    await page.getByText("The agent's owner lets delegates use it (memory, chat) but not manage it").waitFor();
    await screenshots(page, 'delegates-not-allowed', annotate);

    // The owner lets delegates administer: the delegate sees the settings, never the access choice.
    await owner.page.getByLabel('Delegates may').selectOption('admin');
    await saveSettings(owner.page);
    await page.reload({ waitUntil: 'load' });
    await page.getByLabel('Model').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByLabel('Model').inputValue()).toBe(llm.model);
    expect(await page.getByRole('group', { name: 'Who else may use this agent' }).count()).toBe(0);
    await saveSettings(page);
    // With admin the keys page opens; its apps' OAuth access stays the owner's, said in words.
    await openTab(page, 'Keys', 'Agent keys');
    await page.getByText("Only the agent's owner sees and revokes the apps' access: this wallet is its delegate.").waitFor();
    await screenshots(page, 'delegates-admin-keys', annotate);
    // The delegate's save kept the owner's choice.
    await owner.page.reload({ waitUntil: 'load' });
    await expect.poll(() => owner.page.getByLabel('Delegates may').inputValue()).toBe('admin');
    expect(await owner.page.getByLabel('Renters may').inputValue()).toBe('none');

    expect(owner.problems).toEqual([]);
    expect(delegate.problems).toEqual([]);
    await owner.page.close();
    await page.close();
  });

  it('a renter: the header says so, memory opens, settings and audit say why not', { timeout: 180_000 }, async ({ annotate }) => {
    const chain = testnet() as DeploymentInfo;
    const owner = await fundedWallet(chain.rpcUrl);
    const renter = newWallet();
    const rentable = getAddress(chain.rentableCollection as string);
    const tokenId = await mintRentable(chain, owner.address);
    await rent(chain, owner, rentable, tokenId, renter.address, (await chainTime(chain)) + 86_400n);

    const dash: DashboardPage = await openDashboard(env!.context, testnet().baseUrl, renter);
    const { page } = dash;
    await page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(dash);
    // Rentals are not listed: the renter names the token.
    await pickAgent(dash, rentable, String(tokenId));
    await page.getByText('· as renter').waitFor();
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
    await openTab(page, 'Templates', 'Templates');
    await page
      .getByText("As the agent's renter this wallet may use it (memory, chat) but not manage it: Templates is for its owner.")
      .waitFor();
    await openTab(page, 'Audit', 'Audit');
    expect(await mainText(page)).toContain("Audit is for the agent's owner only: as its renter this wallet cannot see it.");
    await screenshots(page, 'delegates-renter', annotate);
    await page.getByRole('button', { name: 'Open the memory' }).click();
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
    expect(dash.problems).toEqual([]);
    await page.close();
  });
});
