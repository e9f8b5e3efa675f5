/**
 * The dashboard's settings pages (docs/dashboard.md) in headless Chromium against the whole `npm run dev`
 * stack, with the injected test wallet: LLM settings (a refused save keeps the form; the key
 * write-only, "Key set" shown), a prompt template with its variables highlighted, the example tool
 * server added with its x-api-key header (a wrong value refused in words), checked, its tools
 * listed, removed; an agent key created (its secret shown once, never in the list), revoked (the
 * key then refused); an OAuth app's access listed and revoked (its token then refused); the profile set (registration.json presents it); the usage chart after one
 * reply of the stand-in model; the audit entries of all of it. Every page in dark mode at 1280 and
 * 360 px, attached as screenshots; no console error, CSP violation or third-party request.
 *
 * Run with `npm run test:browser -- test/browser/dashboard-settings.test.ts` (not part of `npm test`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolServer } from '../../scripts/lib/tool-server';
import { REPO_ROOT } from '../../scripts/lib/migrate';
import { createGatewayClient } from '../../src/client';
import { oauthTokens } from '../support/oauth';
import { mintWithNpm, openDashboard, screenshots, openTab } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;
let tools: { url: string; child: ChildProcess } | undefined;
const toolKey = `tool-key-${randomUUID()}`;

beforeAll(async () => {
  env = await startBrowserStack('dashboard-settings');
  tools = await startToolServer(toolKey);
});

afterAll(async () => {
  tools?.child.kill('SIGTERM');
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const focusedText = (page: Page) =>
  page.evaluate(
    () => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent,
  );

describe('the settings pages of the dashboard, in headless Chromium with an injected wallet', () => {
  it('LLM settings, a template, a tool server, a key, the profile, usage after a reply, the audit trail', { timeout: 300_000 }, async ({
    annotate,
  }) => {
    const walletKey = generatePrivateKey();
    const wallet = privateKeyToAccount(walletKey);
    const tokenId = await mintWithNpm(env!.devDir, wallet.address);
    const collection = getAddress(testnet().collection);
    const llm = env!.stack.llm;
    if (!llm) throw new Error('the stack runs no stand-in model (DEV_LLM=0)');
    const dash = await openDashboard(env!.context, testnet().baseUrl, wallet);
    const { page } = dash;
    await page.goto(appUrl(), { waitUntil: 'load' });
    await page.getByRole('button', { name: 'Connect wallet and log in' }).click();
    await page.getByLabel('Collection address').fill(collection);
    await page.getByLabel('Token id').fill(tokenId);
    await page.getByRole('button', { name: 'Open agent' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor({ timeout: 30_000 });

    // LLM settings: none yet. A save the gateway refuses shows its words and code; the form keeps every value.
    await openTab(page, 'LLM settings', 'LLM settings');
    await expect.poll(() => mainText(page)).toContain('No settings yet');
    const providerKey = `sk-test-${randomUUID()}`;
    await page.getByLabel('Provider').selectOption(llm.provider);
    await page.getByLabel('Model').fill(llm.model);
    await page.getByLabel('Base URL').fill(llm.baseUrl);
    await page.getByLabel('Temperature').fill('5');
    await page.getByLabel('Max tokens').fill('256');
    await page.getByLabel('Tokens per day').fill('100000');
    await page.getByLabel('API key').fill(providerKey);
    await page.getByRole('button', { name: 'Save settings' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/temperature: .*validation_failed/);
    expect(await page.getByLabel('Model').inputValue()).toBe(llm.model);
    expect(await page.getByLabel('API key').inputValue()).toBe(providerKey);
    await page.getByLabel('Temperature').fill('0.2');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => mainText(page)).toContain('Key set');
    expect(await page.getByLabel('Replace the key').inputValue()).toBe('');
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('heading', { name: 'LLM settings' }).waitFor();
    await expect.poll(() => mainText(page)).toContain('Key set');
    expect(await page.getByLabel('Model').inputValue()).toBe(llm.model);
    expect(await page.content()).not.toContain(providerKey);
    // Another provider would drop the stored key: the page says so before the save.
    await page.getByLabel('Provider').selectOption('openai');
    await expect.poll(() => mainText(page)).toContain('saving this change drops the stored key');
    await page.getByLabel('Provider').selectOption(llm.provider);
    await expect.poll(() => mainText(page)).not.toContain('saving this change drops the stored key');
    await screenshots(page, 'settings-llm', annotate);

    // A prompt template: its {{variables}} marked in the preview and listed.
    await openTab(page, 'Templates', 'Prompt templates');
    await page.getByLabel('Template key').fill('greeting');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('heading', { name: 'greeting new: not saved yet' }).waitFor();
    await page.getByLabel('Description').fill('How the agent greets');
    await page.getByLabel('Template', { exact: true }).fill('You help {{customer}} with {{ topic }}.\nBe brief.');
    await expect.poll(() => page.locator('.template-preview mark').allTextContents()).toEqual(['{{customer}}', '{{ topic }}']);
    expect(await page.locator('#template-variables').textContent()).toContain('customer, topic');
    expect(await page.getByRole('region', { name: 'Preview' }).getAttribute('tabindex')).toBe('0');
    await page.getByRole('button', { name: 'Save template' }).click();
    await expect.poll(() => mainText(page)).toContain('Saved greeting');
    expect(await page.getByLabel('Description').inputValue()).toBe('How the agent greets');
    expect(page.url()).toMatch(/#\/templates\/greeting$/);
    // The list (GET …/prompt-templates) names it; a key there opens it.
    const listed = page.getByRole('list', { name: 'Templates' });
    await expect.poll(() => listed.textContent()).toContain('greeting');
    expect(await listed.textContent()).toContain('How the agent greets');
    await page.getByLabel('Template key').fill('other');
    await listed.getByRole('button', { name: 'greeting' }).click();
    await expect.poll(() => page.getByLabel('Template key').inputValue()).toBe('greeting');
    await page.getByRole('heading', { name: /^greeting saved / }).waitFor();
    await screenshots(page, 'settings-templates', annotate);
    // A template not saved yet is an empty answer of the list, not a 404 in the console.
    expect(dash.refusals.filter((r) => r.includes('/prompt-template'))).toEqual([]);

    // The example tool server: a wrong header value is refused in words (the form keeps its values), then added, checked, removed.
    await openTab(page, 'Tool servers', 'Tool servers');
    await expect.poll(() => mainText(page)).toContain('No tool servers yet');
    await page.getByLabel('URL', { exact: true }).fill(tools!.url);
    await page.getByLabel('Name', { exact: true }).fill('example tools');
    await page.getByLabel('Credential', { exact: true }).selectOption('header');
    await page.getByLabel('Header name').fill('x-api-key');
    await page.getByLabel('Header value').fill('not-the-key');
    await page.getByRole('button', { name: 'Add tool server' }).click();
    await alert.waitFor();
    expect(await alert.textContent()).toContain('tool_server_credential_rejected');
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe(tools!.url);
    await page.getByLabel('Header value').fill(toolKey);
    await page.getByRole('button', { name: /^Add tool server/ }).click();
    await expect.poll(() => mainText(page)).toContain('Added example tools: 2 tools.');
    const server = page.getByRole('listitem', { name: 'Tool server example tools' });
    expect(await server.textContent()).toContain('credential set');
    expect(await server.textContent()).toContain('x-api-key');
    await server.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => server.textContent()).toMatch(/Reachable: tools\/list answered in \d+ ms/);
    expect(await server.locator('.tools code').allTextContents()).toEqual(['echo', 'word_count']);
    // The annotations the example server gives, as given.
    expect(await server.locator('.tools li').first().locator('.hints').textContent()).toBe(
      'readOnlyHint: trueidempotentHint: trueopenWorldHint: false',
    );
    expect(await page.content()).not.toContain(toolKey);
    // Rotate the credential: a value the server rejects changes nothing (said with its code), then the right one.
    await server.getByRole('button', { name: 'Replace credential' }).click();
    const replace = server.getByRole('form', { name: 'New credential for example tools' });
    expect(await replace.getByLabel('Header name').inputValue()).toBe('x-api-key');
    await replace.getByLabel('Header value').fill('still-not-the-key');
    await replace.getByRole('button', { name: 'Save credential' }).click();
    await expect.poll(async () => (await replace.getByRole('alert').textContent()) ?? '').toContain('tool_server_credential_rejected');
    await screenshots(page, 'settings-tools', annotate);
    await replace.getByLabel('Header value').fill(toolKey);
    await replace.getByRole('button', { name: 'Save credential' }).click();
    await expect.poll(() => mainText(page)).toContain('New credential of example tools saved.');
    expect(await page.content()).not.toContain(toolKey);
    await server.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => mainText(page)).toContain('Removed example tools.');
    await expect.poll(() => mainText(page)).toContain('No tool servers yet');

    // An MCP client approved by the wallet (the authorize flow without a browser), for the apps list below.
    const oauth = await oauthTokens(testnet(), { owner: { ...wallet, privateKey: walletKey }, collection, tokenId: BigInt(tokenId) });

    // An agent key: the secret shown once (Copy), never in the list; revoked, and then refused.
    await openTab(page, 'Keys', 'Agent keys');
    const refusalsBefore = dash.refusals.length;
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => mainText(page)).toContain('Name the key: what it is for.');
    expect(dash.refusals).toHaveLength(refusalsBefore); // said in words before anything is sent
    await page.getByLabel('Name', { exact: true }).fill('nightly export');
    await page.getByLabel('contexts:read', { exact: true }).check();
    await page.getByLabel('reply', { exact: true }).check();
    await page.getByLabel('Expires').selectOption('1 day');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByRole('textbox', { name: 'Key nightly export' });
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^agk_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => mainText(page)).toMatch(/Copied to the clipboard|press Ctrl\+C/);
    await screenshots(page, 'settings-keys-secret', annotate);
    await page.getByRole('button', { name: 'Done' }).click();
    const keyItem = page.getByRole('listitem', { name: 'Key nightly export' });
    await keyItem.waitFor();
    expect(await keyItem.textContent()).toContain('contexts:read, reply');
    expect(await page.content()).not.toContain(secret);
    await screenshots(page, 'settings-keys', annotate);
    const withKey = createGatewayClient({ baseUrl: testnet().baseUrl, token: secret }).agent(collection, tokenId);
    await withKey.getAgent();
    // By keyboard: Enter asks (focus on the confirm button), Escape takes it back (focus on Revoke), Enter twice revokes.
    await keyItem.getByRole('button', { name: 'Revoke' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page)).toBe('Yes, revoke');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedText(page)).toBe('Revoke');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page)).toBe('Yes, revoke');
    await page.keyboard.press('Enter');
    await expect.poll(() => mainText(page)).toContain('Revoked nightly export.');
    await expect.poll(() => mainText(page)).toContain('No live keys.');
    // The row is gone; focus is on the key list's heading, not dropped to <body>.
    await expect.poll(() => focusedText(page)).toBe('Live keys');
    await expect(withKey.getAgent()).rejects.toMatchObject({ status: 401, code: 'key_revoked' });

    // Apps with access (OAuth): the approved client listed (never a token), revoked behind the confirm step, then refused.
    const app = page.getByRole('listitem', { name: 'App Test MCP client' });
    await app.waitFor();
    expect(await app.textContent()).toContain(oauth.clientId);
    expect(await page.content()).not.toContain(oauth.tokens.access_token.split(':')[2]);
    await app.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => mainText(page)).toContain('Revoked the access of Test MCP client.');
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { tagName: string } } }).document.activeElement.tagName,
      ),
    ).toBe('H2');
    await expect.poll(() => mainText(page)).toContain('No app has access.');
    const mcp = await fetch(`${testnet().baseUrl}/agent/${collection}/${tokenId}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${oauth.tokens.access_token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);

    // The profile: the registration file presents it.
    await openTab(page, 'Profile', 'Profile');
    await expect.poll(() => mainText(page)).toContain('No profile yet');
    // No profile: one 404 (GET …/profile); the registration file, which needs a profile, is not asked.
    expect(dash.refusals.filter((r) => r.includes('/registration.json'))).toEqual([]);
    await page.getByLabel('Name', { exact: true }).fill('Settings test desk');
    await page.getByLabel('Description').fill('Answers questions from the settings test.');
    // An image the registration file may not show (plain http) is refused in words, by the gateway's own rule, before any request.
    const refusalsBeforeProfile = dash.refusals.length;
    await page.getByLabel('Image').fill('http://example.com/agent.png');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => mainText(page)).toContain('An image is an https URL');
    expect(dash.refusals).toHaveLength(refusalsBeforeProfile);
    await page.getByLabel('Image').fill('');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => mainText(page)).toContain('Profile saved');
    await expect.poll(() => mainText(page)).toContain('active: it presents your profile');
    const registrationUrl = await page.getByRole('link', { name: /registration\.json$/ }).getAttribute('href');
    const registration = (await (await fetch(registrationUrl ?? '')).json()) as { name?: string; active?: boolean };
    expect(registration).toMatchObject({ name: 'Settings test desk', active: true });
    expect(await mainText(page)).toContain(`/agent/${collection}/${tokenId}/mcp`);
    // Beside it, the A2A Agent Card made from the same profile, public.
    const cardUrl = await page.getByRole('link', { name: /^A2A Agent Card/ }).getAttribute('href');
    expect(((await (await fetch(cardUrl ?? '')).json()) as { name?: string }).name).toBe('Settings test desk');
    await screenshots(page, 'settings-profile', annotate);

    // One reply of the stand-in model (through the typed client, as the owner), then the usage chart.
    const owner = createGatewayClient({ baseUrl: testnet().baseUrl, login: { account: wallet, chainId: testnet().chainId } });
    await owner.login();
    const agent = owner.agent(collection, tokenId);
    await agent.createContext('settings-test/chat');
    const answer = await agent.reply('settings-test/chat', { message: 'Hello there' });
    expect(answer.usage.inputTokens).toBeGreaterThan(0);
    await openTab(page, 'Usage', 'Usage');
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByRole('table', { name: 'Tokens per day' }).getByRole('row', { name: new RegExp(today) });
    await row.waitFor();
    // The numbers as the page writes them, whatever the browser's digit grouping.
    expect((await row.textContent())?.replace(/[,.\s\u00a0\u202f]/g, '')).toContain(String(answer.usage.inputTokens));
    const bars = page.locator('.chart-svg .day');
    expect(await bars.count()).toBe(7);
    await bars.last().focus();
    await expect.poll(() => page.locator('.chart-picked').textContent()).toContain(`${today}: `);
    expect(await page.locator('.chart-svg .day').last().locator('rect.input').count()).toBe(1);
    await screenshots(page, 'settings-usage', annotate);
    // A range the gateway refuses (from after to): its words and code; then back to the last 7 days.
    await page.getByLabel('Range').selectOption('from … to …');
    await page.getByLabel('From (UTC)').fill(today);
    await page.getByLabel('To (UTC)').fill('2020-01-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(async () => (await page.getByRole('alert').textContent()) ?? '').toContain('validation_failed');
    await page.getByLabel('Range').selectOption('last 7 days');
    await row.waitFor();
    // Light mode follows the system too: one look at the chart in it.
    await page.emulateMedia({ colorScheme: 'light' });
    const light = path.join(REPO_ROOT, '.dashboard-screenshots', 'settings-usage-light-1280.png');
    await page.screenshot({ path: light, fullPage: true });
    await annotate('usage at 1280 px (light)', 'screenshot', { path: light, contentType: 'image/png' });
    await page.emulateMedia({ colorScheme: 'dark' });

    // The audit trail: what this test just did, newest first.
    await openTab(page, 'Audit', 'Audit');
    await page.getByRole('table', { name: 'Audit entries' }).getByRole('row').nth(1).waitFor();
    const actions = await page.locator('table[aria-label="Audit entries"] tbody code').allTextContents();
    expect(actions).toEqual([
      'agent_profile.set',
      'oauth_grant.revoke',
      'agent_key.revoke',
      'agent_key.create',
      // The OAuth grant the page then revokes was approved first: approving writes an entry too.
      'oauth_grant.approve',
      'mcp_connection.remove',
      'mcp_credentials.set',
      'mcp_connection.add',
      'prompt_template.put',
      'llm_settings.set',
    ]);
    expect(await mainText(page)).toContain(`wallet ${wallet.address.toLowerCase()}`);
    await screenshots(page, 'settings-audit', annotate);
    // At 360 px each entry is a block, its values wrapped under their names: nothing cut, no sideways scroller.
    await page.setViewportSize({ width: 360, height: 780 });
    const cut = await page.evaluate(() => {
      type Box = { scrollWidth: number; clientWidth: number; getAttribute(n: string): string | null };
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Box[] } }).document;
      return [...doc.querySelectorAll('.table-wrap, table.entries td')]
        .filter((el) => el.scrollWidth > el.clientWidth + 1)
        .map((el) => el.getAttribute('data-label') ?? 'the table');
    });
    expect(cut).toEqual([]);
    expect(await page.getByRole('region', { name: 'Audit entries' }).getAttribute('tabindex')).toBe('0');
    await page.setViewportSize({ width: 1280, height: 900 });

    expect(dash.problems).toEqual([]);
    await page.close();
  });
});
