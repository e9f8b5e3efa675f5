/**
 * How the dashboard's agent picker starts in a fresh browser (no localStorage, no `?collection=`)
 * against the whole `npm run dev` stack: with the deployment's only registered collection filled
 * in (and the wallet's tokens of it listed), with the choices offered when several are registered,
 * and empty, quietly, when GET /collections fails (a console warning, no error on the page).
 *
 * Run with `npm run test:browser -- test/browser/dashboard-picker.test.ts` (not part of `npm test`).
 */
import pg from 'pg';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { createGatewayClient } from '../../src/client';
import { type DashboardPage, logIn, mintWithNpm, openDashboard, screenshots } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;

beforeAll(async () => {
  env = await startBrowserStack('picker');
});

afterAll(async () => {
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

/** A new page of a new wallet at /app (no `?collection=`), with the console's warnings kept; nothing logged in yet. */
async function freshPage(): Promise<DashboardPage & { warnings: string[]; tokenId: string }> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const tokenId = await mintWithNpm(env!.devDir, wallet.address);
  const dash = await openDashboard(env!.context, testnet().baseUrl, wallet);
  const warnings: string[] = [];
  dash.page.on('console', (msg) => {
    if (msg.type() === 'warning') warnings.push(msg.text());
  });
  await dash.page.goto(appUrl(), { waitUntil: 'load' });
  // No picker has run in this browser: nothing remembers a collection.
  expect(await dash.page.evaluate(() => localStorage.getItem('agent-gateway.collection'))).toBeNull();
  return { ...dash, warnings, tokenId };
}

/** The collections GET /collections lists on the test stack's testnet, as the dashboard's client sees them. */
async function registered(): Promise<string[]> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const client = createGatewayClient({ baseUrl: testnet().baseUrl, login: { account: wallet, chainId: testnet().chainId } });
  return (await client.listCollections()).collections.map((c) => c.address);
}

const collectionField = (dash: DashboardPage) => dash.page.getByLabel('Collection address');
const choicesOf = (dash: DashboardPage) =>
  dash.page
    .locator('#registered-collections option')
    .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));

describe('the agent picker in a fresh browser', () => {
  it('starts with the deployment’s collection, or offers its collections when it has several', async () => {
    const dash = await freshPage();
    await logIn(dash);
    const collections = await registered();
    expect(collections).toContain(getAddress(testnet().collection));
    if (collections.length === 1) {
      // The dev stack registers one demo collection per deployment: it is filled in, and the
      // wallet's token of it is offered.
      await expect.poll(() => collectionField(dash).inputValue()).toBe(getAddress(testnet().collection));
      await dash.page.getByRole('button', { name: `#${dash.tokenId}` }).click();
      expect(await dash.page.getByLabel('Token id').inputValue()).toBe(dash.tokenId);
      expect(await choicesOf(dash)).toEqual([]);
    } else {
      // A kept chain can hold an older demo collection too: the choices, none chosen.
      await expect.poll(() => choicesOf(dash)).toEqual(collections);
      expect(await collectionField(dash).inputValue()).toBe('');
    }
    expect(dash.problems).toEqual([]);
    expect(dash.warnings).toEqual([]);
    await dash.page.close();
  });

  it('with a second registered collection: both are the field’s choices, none chosen, and said so', async ({ annotate }) => {
    const second = getAddress(`0x${'ab'.repeat(20)}`);
    const before = await registered();
    await registerCollection(env!.stack.databaseUrl, { chainId: testnet().chainId, address: second, kind: 'expert' });
    try {
      const expected = await registered();
      expect(expected).toHaveLength(before.length + 1);
      const dash = await freshPage();
      await logIn(dash);
      await expect.poll(() => choicesOf(dash)).toEqual(expected);
      expect(await collectionField(dash).inputValue()).toBe('');
      await dash.page.getByText(`This deployment serves ${expected.length} collections`).waitFor();
      expect(await collectionField(dash).getAttribute('list')).toBe('registered-collections');
      expect(await collectionField(dash).getAttribute('aria-describedby')).toBe('field-collection-hint');
      await screenshots(dash.page, 'picker-choices', annotate);
      expect(dash.problems).toEqual([]);
      await dash.page.close();
    } finally {
      const client = new pg.Client({ connectionString: env!.stack.databaseUrl });
      await client.connect();
      await client.query('delete from gateway.collections where chain_id = $1 and address = $2', [testnet().chainId, second.toLowerCase()]);
      await client.end();
    }
  });

  it('starts empty and quiet when the list fails: a console warning, no error on the page', async () => {
    const dash = await freshPage();
    let asked = 0;
    await dash.page.route(`${new URL(testnet().baseUrl).origin}/collections`, (route) => {
      asked += 1;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'dependency_unavailable', message: 'The database is not available' }, requestId: 'r' }),
      });
    });
    await logIn(dash);
    await expect.poll(() => dash.warnings.length).toBe(1);
    expect(asked).toBe(1);
    expect(dash.warnings[0]).toContain('The registered collections could not be listed');
    expect(await collectionField(dash).inputValue()).toBe('');
    expect(await dash.page.locator('[role="alert"]').count()).toBe(0);
    expect(await choicesOf(dash)).toEqual([]);
    expect(dash.problems).toEqual([]);
    expect(dash.refusals).toEqual(['503 GET /collections']);
    await dash.page.close();
  });
});
