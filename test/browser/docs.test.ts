/**
 * The /docs reference page in a real browser: headless Chromium (Debian's `chromium` package,
 * or CHROMIUM_PATH) driven by playwright-core, against the whole `npm run dev` stack started on
 * free ports with a temporary DEV_DIR. For both deployments the page must list every operation
 * of /openapi.json with its summary, filter them by search, show examples and both code samples,
 * answer "Try it" on GET /health and, with a real token pasted in, on an agent the test minted;
 * under its Content-Security-Policy, with no console error, page error or failed request, and the
 * token never in the page or a console message. The page's layout and features: Try it beside the
 * request sample, full operation names in the sidebar, search scrolling to its hit, dark mode
 * (prefers-color-scheme and the toggle), a credential field per bearer scheme (`agentKey` besides
 * `bearer`) and a text/event-stream response shown by event. Screenshots go to
 * /tmp/docs-<deployment>*.png.
 *
 * Run with `npm run test:browser` (not part of `npm test`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Request } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeEverywhere } from './axe';
import { mintAgent } from '../../scripts/lib/contracts';
import {
  busyPorts,
  cmdlineOf,
  collectStackPids,
  freeDevPorts,
  killAll,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
  type DevPorts,
  type DevRun,
  type ProcessRef,
  type StackFile,
} from '../../scripts/lib/stack-processes';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let devDir = '';
let ports: DevPorts | undefined;
let run: DevRun | undefined;
let stack: StackFile | undefined;
const known = new Map<number, ProcessRef>();
let userDataDir = '';
let context: BrowserContext | undefined;

interface SpecOperation {
  label: string;
  summary: string;
  operationId: string | undefined;
  tag: string;
}

/** Every operation of an OpenAPI document: `METHOD /path` as the page labels it, summary, operationId, tag. */
function operationsOf(spec: {
  paths?: Record<string, Record<string, { summary?: string; operationId?: string; tags?: string[] }>>;
}): SpecOperation[] {
  const ops: SpecOperation[] = [];
  for (const [route, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (typeof op !== 'object' || op === null) continue;
      const label = `${method.toUpperCase()} ${route}`;
      ops.push({ label, summary: op.summary || label, operationId: op.operationId, tag: op.tags?.[0] ?? 'Other' });
    }
  }
  return ops.sort((a, b) => a.label.localeCompare(b.label));
}

/** A fresh wallet that owns a freshly minted agent of the deployment's demo collection, and its token. */
async function ownerWithToken(
  deployment: StackFile['mainnet'],
  funded: Hex,
): Promise<{ address: Address; tokenId: string; token: string }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const tokenId = BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000));
  await mintAgent(deployment.rpcUrl, funded, deployment.collection as Address, account.address, tokenId);
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${deployment.baseUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, string>>;
  };
  const { message } = await post('/auth/jwt/init', { walletAddress: account.address, chainId: deployment.chainId });
  const signature = await account.signMessage({ message: message! });
  const { token } = await post('/auth/jwt/finish', { walletAddress: account.address, chainId: deployment.chainId, signature });
  return { address: account.address, tokenId: tokenId.toString(), token: token! };
}

/** Processes whose command line names our browser profile (Chromium and its helpers). */
function browserProcesses(): string[] {
  if (userDataDir === '') return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map((pid) => ({ pid, cmdline: cmdlineOf(Number(pid)) }))
    .filter((p) => p.cmdline.includes(userDataDir))
    .map((p) => `${p.pid}: ${p.cmdline.slice(0, 200)}`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-browser-'));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  ports = await freeDevPorts();
  run = spawnDev(devDir, ports);
  try {
    stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nnpm run dev output:\n${run.output().slice(-4000)}`);
  }
  collectStackPids(known, devDir, run.pid);

  userDataDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
  });
});

afterAll(async () => {
  const problems: string[] = [];
  // The browser first: closing the persistent context ends Chromium and its helpers.
  await context?.close().catch((err: unknown) => problems.push(`closing the browser: ${String(err)}`));
  if (userDataDir !== '') {
    if (!(await waitUntil(() => browserProcesses().length === 0, 10_000))) {
      problems.push(`browser processes left: ${browserProcesses().join('; ')}`);
    }
    await rm(userDataDir, { recursive: true, force: true });
  }
  // Then the stack: SIGTERM to npm run dev, which stops everything it started.
  if (run) {
    collectStackPids(known, devDir, run.pid);
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const started = Date.now();
    const current = run;
    await Promise.race([current.exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
    await waitUntil(() => stillRunning(known).length === 0, Math.max(0, STOP_TIMEOUT_MS - (Date.now() - started)));
    collectStackPids(known, devDir);
    const left = stillRunning(known);
    if (left.length > 0) {
      problems.push(
        `stack processes still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM: ${left.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`,
      );
      try {
        process.kill(-current.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      killAll(known);
    }
    if (ports) {
      const busy = await busyPorts(ports);
      if (busy.length > 0) problems.push(`ports still in use: ${busy.join(', ')}`);
    }
  }
  if (devDir !== '') await rm(devDir, { recursive: true, force: true });
  expect(problems).toEqual([]);
});

describe('/docs in headless Chromium', () => {
  it.each(['mainnet', 'testnet'] as const)(
    '%s: every operation with its summary, search, samples, Try it with a real token',
    async (net) => {
      const deployment = stack![net];
      const specRes = await fetch(`${deployment.baseUrl}/openapi.json`);
      expect(specRes.status).toBe(200);
      const expected = operationsOf((await specRes.json()) as Parameters<typeof operationsOf>[0]);
      expect(expected.length).toBeGreaterThan(10);
      const labels = expected.map((o) => o.label);
      expect(labels).toContain('GET /health');
      const agentRoute = 'GET /agent/{agentCollectionAddress}/{agentTokenId}';
      expect(labels).toContain(agentRoute);
      const owner = await ownerWithToken(deployment, stack!.accounts[0]!.privateKey as Hex);

      const page = await context!.newPage();
      const consoleMessages: string[] = [];
      const consoleErrors: string[] = [];
      const pageErrors: string[] = [];
      const failedRequests: string[] = [];
      const authorizations: string[] = [];
      page.on('console', (msg: ConsoleMessage) => {
        consoleMessages.push(msg.text());
        if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url}:${msg.location().lineNumber})`);
      });
      page.on('pageerror', (err: Error) => pageErrors.push(err.message));
      page.on('requestfailed', (req: Request) => failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText ?? '?'}`));
      page.on('request', (req: Request) => {
        const auth = req.headers().authorization;
        if (auth !== undefined) authorizations.push(`${req.method()} ${new URL(req.url()).pathname} ${auth}`);
      });
      try {
        const res = await page.goto(`${deployment.baseUrl}/docs`, { waitUntil: 'load' });
        expect(res?.status()).toBe(200);
        expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-/);
        await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
        expect(await page.getAttribute('body', 'data-state'), (await page.textContent('#status')) ?? '').toBe('ready');
        // WCAG 2.1 A/AA and best practice at 1,280 and 360 px, light and dark.
        expect(await axeEverywhere(page, `/docs (${net})`, 'light')).toEqual([]);

        // Every operation, once, with its summary in the sidebar; and its samples and examples.
        const shown = await page.$$eval('[data-operation]', (els) => els.map((el) => el.getAttribute('data-operation') ?? ''));
        expect([...shown].sort()).toEqual([...labels].sort());
        const nav = await page.$$eval('[data-nav]', (els) => els.map((el) => [el.getAttribute('data-nav') ?? '', el.textContent ?? '']));
        expect(nav.map(([label]) => label).sort()).toEqual([...labels].sort());
        for (const op of expected)
          expect(nav.find(([label]) => label === op.label)?.[1], op.label).toBe(op.label.split(' ')[0]! + op.summary);
        expect(await page.locator('[data-sample="curl"]').count()).toBe(expected.length);
        expect(await page.locator('[data-sample="client"]').count()).toBe(expected.length);
        expect(await page.locator('[data-example]').count()).toBeGreaterThan(expected.length);
        const withId = expected.find((o) => o.operationId !== undefined);
        if (withId) {
          const section = page.locator(`section[data-operation="${withId.label}"]`);
          expect(await section.locator('[data-sample="client"] pre').textContent()).toContain(`.${withId.operationId}(`);
        }
        await page.screenshot({ path: `/tmp/docs-${net}.png` });

        // Search: "/" focuses it; it filters by summary, path, operationId and tag.
        await page.keyboard.press('/');
        expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('search');
        await page.keyboard.type('health');
        const matching = (q: string) =>
          expected
            .filter((o) => [o.summary, o.label, o.operationId ?? '', o.tag].join(' ').toLowerCase().includes(q))
            .map((o) => o.label)
            .sort();
        const visible = async () =>
          (
            await page
              .locator('section[data-operation]:visible')
              .evaluateAll((els) => els.map((el) => el.getAttribute('data-operation') ?? ''))
          ).sort();
        expect(await visible()).toEqual(matching('health'));
        expect(await page.locator('[data-nav]:visible').count()).toBe(matching('health').length);
        await page.screenshot({ path: `/tmp/docs-${net}-search.png` });
        await page.keyboard.press('Escape');
        expect(await visible()).toEqual([...labels].sort());

        // Try it on GET /health: no parameters, no token.
        const health = page.locator('section[data-operation="GET /health"]');
        await health.locator('details.try > summary').click();
        await health.getByRole('button', { name: 'Send' }).click();
        await health.locator('.result .status').waitFor({ timeout: 15_000 });
        expect(await health.locator('.result .status').textContent()).toMatch(/^200\b/);
        expect(await health.locator('.result pre').first().textContent()).toContain('{');

        // Try it on the agent with a real token: pasted into the field, sent only in the header.
        await page.locator('#token').fill(owner.token);
        const agent = page.locator(`section[data-operation="${agentRoute}"]`);
        await agent.locator('details.try > summary').click();
        await agent.getByLabel('agentCollectionAddress (path, required)').fill(deployment.collection);
        await agent.getByLabel('agentTokenId (path, required)').fill(owner.tokenId);
        await agent.getByRole('button', { name: 'Send' }).click();
        await agent.locator('.result .status').waitFor({ timeout: 15_000 });
        expect(await agent.locator('.result .status').textContent()).toMatch(/^200\b/);
        expect((await agent.locator('.result pre').first().textContent())?.toLowerCase()).toContain(owner.address.toLowerCase());
        expect(authorizations).toEqual([`GET /agent/${deployment.collection}/${owner.tokenId} Bearer ${owner.token}`]);
        // The code-sample tabs: click, then the arrow keys.
        const clientTab = agent.getByRole('tab', { name: 'TypeScript client' });
        await clientTab.click();
        expect(await agent.locator('[data-sample="client"]').isVisible()).toBe(true);
        expect(await agent.locator('[data-sample="curl"]').isVisible()).toBe(false);
        await page.keyboard.press('ArrowLeft');
        expect(await agent.locator('[data-sample="curl"]').isVisible()).toBe(true);
        await page.keyboard.press('ArrowRight');
        expect(await agent.getByRole('tab', { name: 'TypeScript client' }).getAttribute('aria-selected')).toBe('true');
        await agent.locator('.result').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `/tmp/docs-${net}-try.png` });
        await agent.screenshot({ path: `/tmp/docs-${net}-agent.png` });

        expect(await page.content()).not.toContain(owner.token);
        expect(consoleMessages.filter((m) => m.includes(owner.token))).toEqual([]);
        expect(consoleErrors, 'console errors').toEqual([]);
        expect(pageErrors, 'page errors').toEqual([]);
        expect(failedRequests, 'failed requests').toEqual([]);
      } finally {
        await page.close();
      }
    },
  );

  it('testnet: Try it beside the sample, full names, search scrolls to its hit, dark mode, both credential fields, a stream', async () => {
    const deployment = stack!.testnet;
    const owner = await ownerWithToken(deployment, stack!.accounts[0]!.privateKey as Hex);
    const page = await context!.newPage();
    const pageErrors: string[] = [];
    const authorizations: string[] = [];
    page.on('pageerror', (err: Error) => pageErrors.push(err.message));
    page.on('request', (req: Request) => {
      const auth = req.headers().authorization;
      if (auth !== undefined) authorizations.push(auth);
    });
    // The real document, plus what this round adds where it is not there yet (the `agentKey`
    // scheme on the agent route, a text/event-stream response): once the gateway declares them,
    // nothing is added.
    await page.route('**/openapi.json', async (route) => {
      const spec = (await (await route.fetch()).json()) as OpenApiDoc;
      withAgentKeyAndStream(spec);
      await route.fulfill({ json: spec });
    });
    const agentRoute = 'GET /agent/{agentCollectionAddress}/{agentTokenId}';
    try {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${deployment.baseUrl}/docs`, { waitUntil: 'load' });
      await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
      const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      expect(await background()).toBe('rgb(247, 248, 250)');

      // Full operation names: no sidebar entry is cut off.
      const cut = await page.$$eval('.navsum', (els) =>
        els.filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1).map((el) => el.textContent),
      );
      expect(cut).toEqual([]);

      // Try it sits right under the request sample, above the operation's responses.
      const agent = page.locator(`section[data-operation="${agentRoute}"]`);
      const sample = await agent.locator('.opside .tabs').first().boundingBox();
      const tryIt = await agent.locator('details.try').boundingBox();
      const firstResponse = await agent.locator('.resp').first().boundingBox();
      const lastResponse = await agent.locator('.resp').last().boundingBox();
      expect(tryIt!.y).toBeGreaterThanOrEqual(sample!.y + sample!.height - 1);
      expect(tryIt!.y - (sample!.y + sample!.height)).toBeLessThan(40);
      expect(tryIt!.x).toBeGreaterThan(firstResponse!.x + firstResponse!.width - 1); // the side column
      expect(tryIt!.y).toBeLessThan(lastResponse!.y);

      // Both credential fields, and Try it sends the one chosen.
      expect(await page.locator('#token').isVisible()).toBe(true);
      expect(await page.locator('#cred-agentKey').isVisible()).toBe(true);
      await page.locator('#token').fill(owner.token);
      await page.locator('#cred-agentKey').fill('agk_not_a_real_key_0123456789abcdef');
      await agent.locator('details.try > summary').click();
      await agent.getByLabel('agentCollectionAddress (path, required)').fill(deployment.collection);
      await agent.getByLabel('agentTokenId (path, required)').fill(owner.tokenId);
      const scheme = agent.getByLabel('Credential');
      expect(await scheme.inputValue()).toBe('bearer');
      await agent.getByRole('button', { name: 'Send' }).click();
      await agent.locator('.result .status').waitFor({ timeout: 15_000 });
      expect(await agent.locator('.result .status').textContent()).toMatch(/^200\b/);
      await scheme.selectOption('agentKey');
      await agent.getByRole('button', { name: 'Send' }).click();
      // (waitForFunction evaluates a string in the page, which the page's CSP refuses)
      await expect.poll(() => agent.locator('.result .status').textContent(), { timeout: 15_000 }).toMatch(/^401\b/);
      expect(authorizations).toEqual([`Bearer ${owner.token}`, 'Bearer agk_not_a_real_key_0123456789abcdef']);
      await agent.screenshot({ path: '/tmp/docs-testnet-credentials.png' });

      // A streamed response (the reply's; chat completions stream OpenAI's unnamed events): its
      // events, in order, in the examples.
      const streamSection = page.locator(
        'section[data-operation="POST /agent/{agentCollectionAddress}/{agentTokenId}/context/{contextKey}/reply"]',
      );
      const stream = streamSection.locator('[data-stream]').first();
      expect(await stream.textContent()).toContain('text/event-stream');
      await streamSection
        .getByRole('tab', { name: /stream/ })
        .first()
        .click();
      const events = await streamSection
        .locator('[data-example^="stream"] [data-event]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-event')));
      expect(events.length).toBeGreaterThan(1);
      expect(events.at(-1)).toMatch(/^(done|error)$/);
      await streamSection.screenshot({ path: '/tmp/docs-testnet-stream.png' });

      // Search scrolls to its hit: from the bottom of the page, "health" brings GET /health into view.
      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      await page.locator('#search').fill('health');
      const top = await page.locator('section[data-operation="GET /health"]').evaluate((el) => el.getBoundingClientRect().top);
      expect(top).toBeGreaterThanOrEqual(-1);
      expect(top).toBeLessThan(900 / 2);
      await page.locator('#search').fill('');

      // Dark mode: by the system's preference, and by the toggle against it.
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background()).toBe('rgb(13, 17, 23)');
      await page.screenshot({ path: '/tmp/docs-testnet-dark.png' });
      await page.locator('#theme').click(); // auto -> dark
      await page.locator('#theme').click(); // dark -> light
      expect(await page.getAttribute('html', 'data-theme')).toBe('light');
      expect(await background()).toBe('rgb(247, 248, 250)');
      await page.locator('#theme').click(); // light -> auto (the system's dark)
      expect(await background()).toBe('rgb(13, 17, 23)');

      expect(await page.content()).not.toContain(owner.token);
      expect(pageErrors, 'page errors').toEqual([]);
    } finally {
      await page.close();
    }
  });
});

type OpenApiDoc = {
  paths: Record<
    string,
    Record<string, { security?: Record<string, string[]>[]; responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
  components?: { securitySchemes?: Record<string, unknown> };
};

/** Adds the `agentKey` scheme to the agent route and a text/event-stream response, each only when absent. */
function withAgentKeyAndStream(spec: OpenApiDoc): void {
  spec.components ??= {};
  spec.components.securitySchemes ??= {};
  spec.components.securitySchemes.agentKey ??= { type: 'http', scheme: 'bearer', description: 'An agent key (agk_...).' };
  const summary = spec.paths['/agent/{agentCollectionAddress}/{agentTokenId}']?.get;
  if (summary && !summary.security?.some((s) => 'agentKey' in s)) summary.security = [...(summary.security ?? []), { agentKey: [] }];
  const streams = Object.values(spec.paths).some((item) =>
    Object.values(item).some((op) => Object.values(op.responses ?? {}).some((r) => r.content?.['text/event-stream'] !== undefined)),
  );
  if (!streams) {
    spec.paths['/example/stream'] = {
      post: {
        responses: {
          200: {
            content: {
              'text/event-stream': {
                schema: { type: 'string' },
                example:
                  'event: delta\ndata: {"text":"Hel"}\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: done\ndata: {"reply":"Hello"}\n\n',
              },
            },
          },
        },
      },
    };
  }
}
