/**
 * The owner's dashboard at /app (docs/dashboard.md) in headless Chromium against the whole `npm run dev`
 * stack, with an injected test wallet (test/browser/wallet.ts) on another chain than the
 * deployment's: log in (the page asks the wallet to switch), pick an agent minted with `npm run
 * mint`, hydrate a JSONL file and read the messages, chat with the stand-in model (a tool call
 * shown, a reply stopped), log out; a wallet that refuses to switch is told so. Every page in
 * dark mode at 1280 and 360 px, attached as screenshots; no console error, CSP violation or
 * third-party request anywhere.
 *
 * Run with `npm run test:browser -- test/browser/dashboard.test.ts` (not part of `npm test`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDIN_MODEL } from '../../scripts/lib/stack-llm';
import { defaultReply, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { createGatewayClient } from '../../src/client';
import { focused, focusRingContrast, logIn, mintWithNpm, openDashboard, ownerWithAgentIn, pickAgent, screenshots } from './dashboard-page';
import { type BrowserStack, startBrowserStack } from './stack';

let env: BrowserStack | undefined;
/** The stand-in model, slow (a word every 100 ms) when asked to talk slowly: a reply to Stop. */
let llm: StandinLlm | undefined;
let files = '';

beforeAll(async () => {
  env = await startBrowserStack('dashboard');
  llm = await startStandinLlm({
    script: ({ body }) => {
      const said = JSON.stringify(body.messages?.at(-1)?.content ?? '');
      return said.includes('talk slowly') ? { text: 'slowly '.repeat(300).trim(), chunkDelayMs: 100 } : defaultReply(body);
    },
  });
  files = await mkdtemp(path.join(tmpdir(), 'agent-gateway-dashboard-files-'));
});

afterAll(async () => {
  await llm?.close();
  if (files) await rm(files, { recursive: true, force: true });
  await env?.stop();
});

const testnet = () => env!.stack.testnet;
const appUrl = () => `${new URL(testnet().baseUrl).origin}/app`;

/** Logs in through the page: the login button, the wallet switched and signed, the picker shown. */
/** A fresh wallet with an agent minted by `npm run mint`, logged in and its agent picked in a new page. */
const ownerWithAgent = () => ownerWithAgentIn(env!.context, env!.devDir, testnet());

/** `ownerWithAgent`, the agent answering with this file's stand-in model (settings saved through the typed client). */
async function ownerWithStandinAgent() {
  const dash = await ownerWithAgent();
  const client = createGatewayClient({ baseUrl: testnet().baseUrl, login: { account: dash.wallet, chainId: testnet().chainId } });
  const agent = client.agent(getAddress(testnet().collection), dash.tokenId);
  await agent.saveLlmSettings({
    provider: 'openai-compatible',
    model: STANDIN_MODEL,
    baseUrl: llm!.baseUrl,
    temperature: 0,
    maxTokens: 1000,
  });
  return { dash, agent };
}

describe('the dashboard at /app, in headless Chromium with an injected wallet', () => {
  it('log in (the wallet asked to switch chain), pick an agent minted with npm run mint, log out', async ({ annotate }) => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const tokenId = await mintWithNpm(env!.devDir, wallet.address);
    const collection = getAddress(testnet().collection);
    const dash = await openDashboard(env!.context, testnet().baseUrl, wallet);
    const { page } = dash;
    // The address names the deployment's collection (as the dev banner's link does): the picker starts with it.
    const res = await page.goto(`${appUrl()}?collection=${collection}`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.title()).toBe('Log in · agent-gateway');
    await screenshots(page, 'login', annotate);
    // By keyboard: the first Tab is the skip link, which goes to the page's heading; the focus
    // ring stands out 3:1 from the page and the cards in both schemes.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('BUTTON Skip to the page');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await focusRingContrast(page), scheme).toBeGreaterThanOrEqual(3);
    }
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('H1 Log in');

    await logIn(dash);
    // Focus goes to the new view's heading (not to <body>), and the tab's title names it.
    await expect.poll(() => focused(page)).toBe('H1 Pick an agent');
    expect(await page.title()).toBe('Pick an agent · agent-gateway');
    expect(await page.getByLabel('Collection address').inputValue()).toBe(collection);
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

    // The wallet's own tokens of the collection (ERC-721 Enumerable) are listed; one fills the id.
    await page.getByLabel('Collection address').fill(collection);
    await page.getByRole('button', { name: `#${tokenId}` }).click();
    expect(await page.getByLabel('Token id').inputValue()).toBe(tokenId);
    expect(await page.textContent('main')).toContain('Your tokens in this collection');
    await screenshots(page, 'picker-owned', annotate);
    // The gateway's refusal, with its code: a token this wallet does not own.
    await page.getByLabel('Collection address').fill(collection);
    await page.getByLabel('Token id').fill(String(BigInt(tokenId) + 1000n));
    await page.getByRole('button', { name: 'Open agent' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/agent_not_found|not_owner|forbidden/);
    expect(dash.refusals).toEqual([expect.stringMatching(/^(403|404) GET \/agent\//)]);

    await pickAgent(dash, collection, tokenId);
    await expect.poll(() => focused(page)).toBe('H1 Memory');
    expect(await page.title()).toBe('Memory · agent-gateway');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Chat' }).click();
    await expect.poll(() => focused(page)).toBe('H1 Chat');
    expect(await page.title()).toBe('Chat · agent-gateway');
    // The tab keeps the login across a reload; logout forgets it.
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await screenshots(page, 'shell', annotate);
    // The guides and the reference page are a link away (same origin: the CSP allows it).
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
    expect(await page.getByRole('link', { name: 'Guides' }).getAttribute('href')).toBe('/docs#guides');
    // A token the gateway refuses (here: its signature broken) sends the tab back to login, saying why.
    const kept = await page.evaluate(() => sessionStorage.getItem('agent-gateway.session') ?? '');
    const session = JSON.parse(kept) as { token: string };
    await page.evaluate(
      (value) => sessionStorage.setItem('agent-gateway.session', value),
      JSON.stringify({ ...session, token: `${session.token}x` }),
    );
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.textContent('main')).toMatch(/no longer accepts this tab's login \(\w+\)/);
    expect(dash.refusals.at(-1)).toMatch(/^401 GET \/agent\//);
    // A token past its expiry is not even sent: login, with the reason.
    const [header, , signature] = session.token.split('.');
    const expired = Buffer.from(JSON.stringify({ sub: wallet.address, exp: Math.floor(Date.now() / 1000) - 60 })).toString('base64url');
    await page.evaluate(
      (value) => sessionStorage.setItem('agent-gateway.session', value),
      JSON.stringify({ ...session, token: `${header}.${expired}.${signature}` }),
    );
    const refusalsBefore = dash.refusals.length;
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.textContent('main')).toContain('Your session expired: log in again.');
    expect(dash.refusals.length).toBe(refusalsBefore);
    // Logging in again brings back the agent picked before; logout forgets both.
    await page.getByRole('button', { name: 'Connect wallet and log in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // The browser keeps the collection last opened (public, not the agent): the picker starts with it.
    await page.goto(appUrl(), { waitUntil: 'load' });
    await logIn(dash);
    expect(await page.getByLabel('Collection address').inputValue()).toBe(collection);
    expect(await page.getByLabel('Token id').inputValue()).toBe('');
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

  it('memory: create a context, append, hydrate a JSONL file (invalid line reported, resumed upload), newest first, search', async ({
    annotate,
  }) => {
    const dash = await ownerWithAgent();
    const { page } = dash;
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
    await expect.poll(() => page.textContent('main')).toContain('No contexts yet');
    await screenshots(page, 'memory-empty', annotate);

    // A key the gateway's rules refuse is said in words before anything is sent; the value stays.
    await page.getByLabel('Context key').fill('x');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.textContent('main')).toContain('The key must be');
    await page.getByLabel('Context key').fill('notes/first');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'notes/first' }).waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Hello from the dashboard.');
    await page.getByRole('button', { name: 'Append' }).click();
    await expect.poll(() => page.locator('.message').first().textContent()).toBe('Hello from the dashboard.');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
    // Creating it again: the gateway's refusal with its code, the key still typed.
    await page.getByRole('link', { name: '← All contexts' }).click();
    await page.getByLabel('Context key').fill('notes/first');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('context_exists');
    expect(await page.getByLabel('Context key').inputValue()).toBe('notes/first');

    const jsonl = path.join(files, `import-${dash.tokenId}.jsonl`);
    const lines = [
      { key: 'import/alpha', role: 'user', message: 'Alpha one: the customer asked about invoice INV-2024-0042.' },
      { key: 'import/alpha', role: 'assistant', message: 'Alpha two: the invoice was sent again.' },
      { key: 'import/beta', role: 'user', message: 'Beta one: prefers email.' },
      { key: 'import/beta', role: 'robot', message: 'Beta two: a role the gateway does not know.' },
      { key: 'import/alpha', role: 'user', message: 'Alpha three: thanks, received.' },
    ];
    await writeFile(jsonl, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    await page.getByLabel('JSONL file', { exact: true }).setInputFiles(jsonl);
    await expect.poll(() => page.textContent('main')).toContain('4 messages for 2 contexts');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'Lines not stored (1)' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.failed tbody tr').textContent()).toMatch(/^4invalid_linerole: must be one of user, system, assistant/);
    expect(await page.locator('#hydrate-progress').getAttribute('value')).toBe('4');
    expect(await page.textContent('main')).toContain('4 stored');
    await screenshots(page, 'memory-hydrated', annotate);
    // The same file again goes on from where the first upload ended: nothing is sent twice.
    await page.getByLabel('JSONL file', { exact: true }).setInputFiles([]);
    await page.getByLabel('JSONL file', { exact: true }).setInputFiles(jsonl);
    await expect.poll(() => page.textContent('main')).toContain('stored by an earlier upload: Upload goes on from there');
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.textContent('main')).toContain('0 stored, 0 already there (replayed), 4 stored by an earlier upload');

    // The context's messages, newest first, with their roles.
    await page.getByRole('button', { name: 'import/alpha', exact: true }).click();
    await page.getByRole('heading', { name: 'import/alpha' }).waitFor();
    await expect
      .poll(() => page.locator('.message').allTextContents())
      .toEqual([
        'Alpha three: thanks, received.',
        'Alpha two: the invoice was sent again.',
        'Alpha one: the customer asked about invoice INV-2024-0042.',
      ]);
    expect(await page.locator('.message-item .role').allTextContents()).toEqual(['user', 'assistant', 'user']);
    await screenshots(page, 'context', annotate);

    // Search with the query language: an identifier, and a word excluded.
    await page.getByRole('link', { name: '← All contexts' }).click();
    await page.getByLabel('Query').fill('INV-2024-0042');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.locator('#search-title ~ div .message').allTextContents())
      .toEqual(['Alpha one: the customer asked about invoice INV-2024-0042.']);
    await page.getByLabel('Query').fill('invoice -customer');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.locator('#search-title ~ div .message').allTextContents())
      .toEqual(['Alpha two: the invoice was sent again.']);
    await screenshots(page, 'memory', annotate);
    expect(dash.problems).toEqual([]);
    // Only the refused create: a context without a summary says "None yet" without asking for it
    // (its messages' read says hasSummary: false), so no 404 summary_not_found.
    const agentPath = `/agent/${getAddress(testnet().collection)}/${dash.tokenId}`;
    expect(dash.refusals).toEqual([`400 POST ${agentPath}/context`]);

    // Chat in a context with messages, and a reply that fails (no LLM settings yet): the earlier
    // messages first; the failure said in words, with its code, and no empty assistant bubble.
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Chat' }).click();
    await page.getByLabel('Open a context').selectOption('notes/first');
    await expect.poll(() => page.locator('.earlier-message .message').allTextContents()).toEqual(['Hello from the dashboard.']);
    await page.getByLabel('Message', { exact: true }).fill('Are you there?');
    await page.getByRole('button', { name: 'Send' }).click();
    const failed = page.locator('.turn').last();
    await failed.getByRole('alert').waitFor({ timeout: 30_000 });
    expect(await failed.getByRole('alert').textContent()).toMatch(/[a-z]+_[a-z_]+/);
    expect(await failed.locator('.bubble.assistant').count()).toBe(0);
    expect(await failed.locator('.bubble.user').textContent()).toContain('Are you there?');
    await screenshots(page, 'chat-failed', annotate);
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('hydrate: an upload stopped half-way goes on from where it stopped; every line stored exactly once', async ({ annotate }) => {
    const dash = await ownerWithAgent();
    const { page } = dash;
    const count = 300;
    const jsonl = path.join(files, `bulk-${dash.tokenId}.jsonl`);
    const lines = Array.from({ length: count }, (_, i) => ({
      key: `bulk/${String(i).padStart(3, '0')}`,
      role: 'user',
      message: `Bulk line ${i + 1}.`,
    }));
    await writeFile(jsonl, lines.map((l) => JSON.stringify(l)).join('\n'));
    await page.getByLabel('JSONL file', { exact: true }).setInputFiles(jsonl);
    await expect.poll(() => page.textContent('main')).toContain(`${count} messages for ${count} contexts`);
    await page.getByRole('button', { name: 'Upload' }).click();
    const storedNow = async () => Number(/(\d+) stored,/.exec((await page.locator('.meta[role="status"]').textContent()) ?? '')?.[1] ?? 0);
    await expect.poll(storedNow, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Upload ended early').waitFor();
    const first = await storedNow();
    expect(first).toBeLessThan(count);
    expect(await page.locator('.failed tbody tr td:nth-child(2)').first().textContent()).toBe('not_sent');
    // The counts add up: the bar shows what is stored, every line not stored is listed.
    const stoppedStatus = (await page.locator('.meta[role="status"]').textContent()) ?? '';
    expect(stoppedStatus).toMatch(new RegExp(`^${count} of ${count} messages done: ${first} stored, `));
    expect(await page.locator('#hydrate-progress').getAttribute('value')).toBe(String(first));
    expect(await page.locator('.failed tbody tr').count()).toBe(Number(/(\d+) failed/.exec(stoppedStatus)?.[1]));
    expect(Number(/(\d+) failed/.exec(stoppedStatus)?.[1])).toBe(count - first);
    await screenshots(page, 'hydrate-stopped', annotate);

    await page.getByLabel('JSONL file', { exact: true }).setInputFiles([]);
    await page.getByLabel('JSONL file', { exact: true }).setInputFiles(jsonl);
    await expect.poll(() => page.textContent('main')).toContain('stored by an earlier upload: Upload goes on from there');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Every line is stored.').waitFor({ timeout: 60_000 });
    const status = (await page.locator('.meta[role="status"]').textContent()) ?? '';
    const [, sent, replayed, resumed, failed] =
      /: (\d+) stored, (\d+) already there \(replayed\), (\d+) stored by an earlier upload, (\d+) failed/.exec(status) ?? [];
    expect(Number(resumed)).toBe(first);
    expect(Number(failed)).toBe(0);
    expect(Number(sent) + Number(replayed) + Number(resumed)).toBe(count);

    // Through the API: each line stored once, whatever was in flight when Stop came.
    const client = createGatewayClient({ baseUrl: testnet().baseUrl, login: { account: dash.wallet, chainId: testnet().chainId } });
    const agent = client.agent(getAddress(testnet().collection), dash.tokenId);
    const perKey: number[] = [];
    for (let i = 0; i < count; i += 25) {
      const chunk = lines.slice(i, i + 25);
      perKey.push(...(await Promise.all(chunk.map(async (l) => (await agent.readMessages(l.key, { limit: 5 })).messages.length))));
    }
    expect(perKey).toEqual(lines.map(() => 1));
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('chat: a streamed reply with a tool call and its result, usage after; Stop ends a reply and the next one works', async ({
    annotate,
  }) => {
    const { dash, agent } = await ownerWithStandinAgent();
    const { page } = dash;
    await agent.createContexts(['chat/one']);
    await agent.appendMessage('chat/one', { role: 'user', message: 'The parcel number is PX-7781.' });

    await page.getByRole('link', { name: 'Chat' }).click();
    // The page changes on the hash's event: until Chat is drawn, 'Context key' is the Memory
    // page's field of the same name (filling it there was lost when Chat replaced it).
    await page.getByRole('heading', { name: 'Chat', exact: true }).waitFor();
    // A context that does not exist yet: said in words, with Create; nothing is sent, no empty bubble.
    await page.getByLabel('Context key').fill('chat/none');
    await page.getByLabel('Message', { exact: true }).fill('hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Create context chat/none' }).waitFor();
    expect(await page.locator('.turn').count()).toBe(0);
    // An existing context is picked from the list; its earlier messages show first.
    await page.getByLabel('Open a context').selectOption('chat/one');
    expect(await page.getByLabel('Context key').inputValue()).toBe('chat/one');
    await expect.poll(() => page.locator('.earlier-message .message').allTextContents()).toEqual(['The parcel number is PX-7781.']);
    await page.getByLabel('Message', { exact: true }).fill('use tool memory_search PX-7781');
    await page.getByRole('button', { name: 'Send' }).click();
    const tool = page.locator('.tool[data-tool="memory_search"]');
    await tool.locator('.tool-result').waitFor({ timeout: 30_000 });
    expect(await tool.textContent()).toContain('PX-7781');
    // The tool's boxes scroll when long: each is a named region the keyboard reaches.
    expect(await tool.getByRole('region', { name: 'Result of memory_search' }).getAttribute('tabindex')).toBe('0');
    await expect
      .poll(() => page.locator('.reply-meta').last().textContent(), { timeout: 30_000 })
      .toMatch(/^Finished: stop · \d+ input tokens/);
    expect(await page.locator('.reply-text').last().textContent()).toContain('memory_search answered');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
    // Focus is back in the message box once the reply is done (Send was disabled while it ran).
    await expect.poll(() => focused(page)).toMatch(/^TEXTAREA/);
    await screenshots(page, 'chat', annotate);

    await page.getByLabel('Message', { exact: true }).fill('please talk slowly');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.reply-text').last().textContent(), { timeout: 30_000 }).toMatch(/^slowly slowly/);
    // While the reply runs, focus is on Stop: Enter stops it, and focus goes back to the message box.
    expect(await focused(page)).toBe('BUTTON Stop');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.reply-meta').last().textContent()).toContain('Stopped');
    await expect.poll(() => focused(page)).toMatch(/^TEXTAREA/);
    const stoppedAt = (await page.locator('.reply-text').last().textContent()) ?? '';
    expect(stoppedAt.length).toBeLessThan('slowly '.repeat(300).length);

    // The page stays usable: the next reply streams (after the gateway has ended the stopped one).
    await expect
      .poll(
        async () => {
          await page.getByLabel('Message', { exact: true }).fill('hello again');
          await page.getByRole('button', { name: 'Send' }).click();
          await page.locator('.turn').last().locator('.reply-meta, [role="alert"]').waitFor({ timeout: 30_000 });
          return page.locator('.reply-meta').last().textContent();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toMatch(/^Finished: stop/);
    expect(await page.locator('.reply-text').last().textContent()).toContain('you said: hello again');
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it("a long context: the chat's reply leaves its oldest messages out, and the context's page shows the summary of them", async ({
    annotate,
  }) => {
    const { dash, agent } = await ownerWithStandinAgent();
    const { page } = dash;
    // 170 nights of about 630 tokens each: more than the stack's 100,000 tokens a request.
    const log = Array.from({ length: 170 }, (_, i) => ({
      role: 'user' as const,
      message: `Night ${i + 1}.${' The nightly import moved the customer records and wrote its report.'.repeat(27)}`,
    }));
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
    await page.getByLabel('Context key').fill('log/long');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'log/long' }).waitFor();
    for (let i = 0; i < log.length; i += 50) await agent.appendMessages('log/long', log.slice(i, i + 50));
    const firstId = (await agent.readMessages('log/long', { limit: 1 })).messages[0]!.id;
    await expect.poll(() => page.locator('section[aria-labelledby="summary-title"]').textContent()).toContain('None yet.');

    await page.getByRole('button', { name: 'Chat in this context' }).click();
    // The Memory page has a Message box too: fill the chat's only once the chat shows the context.
    await page.getByRole('heading', { name: 'Chat', exact: true }).waitFor();
    await expect.poll(() => page.locator('.earlier-message').count()).toBeGreaterThan(0);
    await page.getByLabel('Message', { exact: true }).fill('What did the import do on night 1?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.reply-meta').last().textContent(), { timeout: 30_000 }).toMatch(/^Finished: stop/);

    // The summary is written just after the reply; the context's page reads it.
    const title = page.locator('#summary-title');
    await expect
      .poll(
        async () => {
          await page.getByRole('link', { name: 'Memory' }).click();
          await page.getByRole('button', { name: 'log/long', exact: true }).click();
          await page.getByRole('heading', { name: 'log/long' }).waitFor();
          await page.locator('section[aria-labelledby="summary-title"][aria-busy="false"]').waitFor();
          return title.textContent();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toMatch(new RegExp(`^Summary of messages #${firstId}–#\\d+$`));
    const summary = await page.locator('section[aria-labelledby="summary-title"] .message').textContent();
    expect(summary).toMatch(new RegExp(`^stand-in summary: #${firstId} Night 1\\. The nightly…`));
    const lastId = Number(/#(\d+)$/.exec((await title.textContent()) ?? '')![1]);
    expect(lastId - firstId + 1, 'some nights left out, most sent').toBeLessThan(85);
    expect(await agent.readSummary('log/long')).toMatchObject({ fromId: firstId, toId: lastId, summary });
    await screenshots(page, 'context-summary', annotate);
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('a fresh agent: its LLM settings, profile and context pages ask nothing that fails; once set, they read them', async () => {
    const dash = await ownerWithAgent();
    const { page } = dash;
    // Every console error from here on, Chromium's "Failed to load resource" line for a 4xx included.
    const consoleErrors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
    });
    const asked: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/agent/')) asked.push(`${req.method()} ${new URL(req.url()).pathname}`);
    });
    const open = async (title: string, heading: string) => {
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    };
    const client = createGatewayClient({ baseUrl: testnet().baseUrl, login: { account: dash.wallet, chainId: testnet().chainId } });
    const agent = client.agent(getAddress(testnet().collection), dash.tokenId);
    await agent.createContext('fresh/notes');
    const agentPath = `/agent/${getAddress(testnet().collection)}/${dash.tokenId}`;

    await open('LLM settings', 'LLM settings');
    await expect.poll(() => page.textContent('main')).toContain('No settings yet');
    await open('Profile', 'Profile');
    await expect.poll(() => page.textContent('main')).toContain('No profile yet');
    await open('Memory', 'Memory');
    await page.getByRole('button', { name: 'fresh/notes', exact: true }).click();
    await page.getByRole('heading', { name: 'fresh/notes' }).waitFor();
    await expect.poll(() => page.textContent('main')).toContain('None yet.');
    await expect.poll(() => page.textContent('main')).toContain('No messages yet.');
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(dash.problems).toEqual([]);
    // The empty answers came from the questions that have them; the 404 routes were never asked.
    expect(asked).not.toContainEqual(expect.stringMatching(/\/(llm\/settings|profile|registration\.json|summary)$/));

    // Once there are settings and a profile, the same pages read and show them, still without a failure.
    await agent.saveLlmSettings({ provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2, maxTokens: 1000 });
    await agent.setProfile({ name: 'Fresh desk', description: 'Answers fresh questions.' });
    await open('LLM settings', 'LLM settings');
    await expect.poll(() => page.getByLabel('Model', { exact: true }).inputValue()).toBe('gpt-4.1-mini');
    await open('Profile', 'Profile');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe('Fresh desk');
    await expect.poll(() => page.textContent('main')).toContain('active: it presents your profile');
    expect(asked).toEqual(
      expect.arrayContaining([`GET ${agentPath}/llm/settings`, `GET ${agentPath}/profile`, `GET ${agentPath}/registration.json`]),
    );
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    await page.close();
  });
});
