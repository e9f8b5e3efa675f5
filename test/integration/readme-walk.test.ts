/**
 * README's "Five minutes" walk, run as written: the shell blocks marked `<!-- walk -->` are taken
 * from README.md and run with bash (errexit, nounset, pipefail) against a fresh `npm run dev` on
 * free ports, from the checkout as a newcomer would. Then the gateway itself is asked: the agent
 * holds the hydrated messages, the chat's question and answer and the registered tool server, and
 * the walk printed the tool's result and the agent's answers (the stand-in model calling the tool, the summary of what a reply in a long log left out, then memory_search finding a hydrated note from another context), and the dashboard's URL. Editing README so its commands break fails this test.
 * Around the walk: `npm run dev`'s banner names each deployment's dashboard and README's owner
 * account, README names no dashboard port of its own, and what README says of `npm install`'s
 * EBADENGINE warnings on an older Node holds (npm's own engine check, run offline on the lockfile).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/migrate';
import { freePort } from '../../scripts/lib/processes';
import { waitUntil } from '../../scripts/lib/stack-processes';
import { startDevStack } from '../support/dev-run';
import { call } from '../support/http';
import { login } from '../support/login';

/** The shell blocks README marks with `<!-- walk -->`, in order. */
function walkBlocks(readme: string): string[] {
  return [...readme.matchAll(/<!-- walk -->\s*\n```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/**
 * The machine's own PATH, as a newcomer's shell has it: no node_modules/.bin (only npm scripts and
 * npx put it first), so `node` and `npm` are the machine's (Node 20 on these machines).
 */
const machinePath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => !dir.split(path.sep).includes('node_modules'))
  .join(path.delimiter);

/** Whether `version` (x.y.z) meets an npm `engines` range of the shapes packages use: `>=a.b.c`, `^a.b.c`, joined by `||`. */
function meets(version: string, range: string): boolean {
  const parts = (v: string) => v.replace(/^v/, '').split('.').map(Number) as [number, number, number];
  const compare = (a: number[], b: number[]) => a[0]! - b[0]! || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);
  const have = parts(version);
  return range.split('||').some((alternative) => {
    const m = /^\s*(>=|\^)\s*(\d+(?:\.\d+){0,2})\s*$/.exec(alternative);
    if (!m) throw new Error(`unexpected engines range ${JSON.stringify(range)}`);
    const want = parts(m[2]!);
    return compare(have, want) >= 0 && (m[1] === '>=' || have[0] === want[0]);
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a background tool server left by a failed walk is stopped too.
    const child = spawn('bash', ['-c', script], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    cleanups.push(async () => killGroup());
    const timer = setTimeout(killGroup, timeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, stdout, stderr });
    });
  });
}

describe("README's five-minute walk", () => {
  it("finds the marked blocks, and they mint, log in, hydrate, register the example tool server, call it, chat with the agent, a reply in a long log leaves a summary of what it left out, the agent finds a hydrated note from another context, and the dashboard is named as the banner names it, with README's owner", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const blocks = walkBlocks(readme);
    expect(blocks.length, 'README has the <!-- walk --> blocks').toBeGreaterThanOrEqual(3);
    expect(blocks.join('\n'), 'no placeholders to fill in').not.toMatch(/<[a-z][a-z ]*>|0x\.\.\./i);

    const devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-walk-'));
    await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
    const home = await mkdtemp(path.join(tmpdir(), 'agent-gateway-walk-home-'));
    cleanups.push(
      () => rm(devDir, { recursive: true, force: true }),
      () => rm(home, { recursive: true, force: true }),
    );
    const stackRun = await startDevStack(devDir, cleanups);
    const { stack } = stackRun;

    // The banner names each deployment's dashboard (/app) and README's owner: the account the
    // walk mints to and logs in with, its key as the walk exports it.
    const { run } = stackRun;
    expect(await waitUntil(() => run.output().includes('ready in'), 30_000), run.output()).toBe(true);
    const banner = run.output();
    // Measured, not asserted (speed is tracked, not enforced by a test): README states the figure.
    const stated = /ready in ([\d ]+ to [\d ]+ s)/.exec(readme)?.[1];
    console.log(`readme-walk: npm run dev ${/ready in [\d.]+ s/.exec(banner)?.[0]} (README: ready in ${stated})`);
    for (const name of ['mainnet', 'testnet'] as const) expect(banner).toContain(`dashboard ${stack[name].baseUrl}/app`);
    const readmeKey = /^export AGENT_GATEWAY_PRIVATE_KEY=(0x[0-9a-f]{64})$/m.exec(blocks[0]!)?.[1];
    const readmeOwner = /--to (0x[0-9a-fA-F]{40})/.exec(blocks[0]!)?.[1];
    expect(readmeOwner && readmeKey && privateKeyToAccount(readmeKey as `0x${string}`).address).toBe(readmeOwner);
    expect(banner).toMatch(new RegExp(`^  README's owner +${readmeOwner}\n +private key ${readmeKey} `, 'm'));
    // README points at the banner and stack.json for the dashboard, never at a port of its own.
    expect(readme).not.toMatch(/127\.0\.0\.1:\d+\/app/);

    const toolPort = await freePort();
    // A newcomer's shell: the checkout as working directory, the machine's PATH (its own Node, 20
    // on these machines), a fresh HOME (no saved logins, an empty npm cache), and DEV_DIR/TOOL_PORT
    // only because this stack and tool server run on moved ports.
    const env: NodeJS.ProcessEnv = { PATH: machinePath, HOME: home, TMPDIR: tmpdir(), DEV_DIR: devDir, TOOL_PORT: String(toolPort) };
    // The tool block runs twice, as a newcomer re-running it would: the second add reuses the connection.
    // The tool block (the one that starts the tool server) is run again after its server is
    // stopped, before the last block (the agent's answer, which stops the server at its end).
    const toolBlock = blocks.findIndex((b) => b.includes('tools add'));
    expect(toolBlock, 'a block registers the tool server').toBeGreaterThan(0);
    const script = [...blocks.slice(0, toolBlock + 1), 'kill $TOOL_PID; wait $TOOL_PID || true', ...blocks.slice(toolBlock)];
    const walk = await runBash(`set -euo pipefail\n${script.join('\n')}\n`, env, 180_000);
    const output = `exit ${walk.code}\n--- stdout ---\n${walk.stdout}\n--- stderr ---\n${walk.stderr}`;
    expect(walk.code, output).toBe(0);
    // No npm noise before the commands' output (EBADENGINE on a Node older than the project's).
    expect(walk.stderr, output).not.toMatch(/^npm (warn|WARN)/m);

    // The walk's own output: the export of the hydrated context and the tool's result.
    const exported = walk.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"key"'))
      .map((line) => JSON.parse(line) as { role: string; message: string });
    expect(
      exported.map((m) => [m.role, m.message]),
      output,
    ).toEqual([
      ['user', 'I prefer email over phone.'],
      ['assistant', 'Noted: email only.'],
    ]);
    const toolLines = walk.stdout.split('\n').filter((line) => line.startsWith('{"content"'));
    expect(toolLines, output).toHaveLength(2);
    for (const line of toolLines) expect(JSON.parse(line), output).toMatchObject({ content: [{ type: 'text', text: '3' }] });
    expect(walk.stderr, output).toMatch(/tools add: the agent already has a connection for http:\/\/127\.0\.0\.1:\d+\/mcp: reusing /);
    // The last block names the minted agent's dashboard: the deployment's URL with /app, served.
    expect(walk.stdout, output).toContain(`\ndashboard: ${stack.testnet.baseUrl}/app\n`);
    const app = await fetch(`${stack.testnet.baseUrl}/app`);
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toMatch(/^text\/html/);
    await app.body?.cancel();
    // The agent answered in agent-gateway chat, through the stand-in model, using the example tool.
    expect(walk.stdout, output).toContain('\nstand-in model: word_count answered: 3\n');
    expect(walk.stderr, output).toMatch(/→ tool word_count \{"text":"one two three"\}\n← word_count \d+ ms ok\n/);
    // Asked in a new context, the agent found the note hydrated into another one (memory_search).
    expect(walk.stderr, output).toMatch(/→ tool memory_search \{"query":"email"\}\n← memory_search \d+ ms ok\n/);
    const searched = /^stand-in model: memory_search answered: (.*)$/m.exec(walk.stdout);
    expect(searched, output).not.toBeNull();
    const found = JSON.parse(searched![1]!) as { hits: { contextKey: string; role: string; message: string }[] };
    expect(found.hits, output).toContainEqual(
      expect.objectContaining({ contextKey: 'customer:42/notes', role: 'user', message: 'I prefer email over phone.' }),
    );

    // In the long log, the reply left the oldest nights out, and the summary of them was stored
    // after it, from the log's first message on.
    expect(walk.stdout, output).toContain('\nstand-in model: you said: What did the import do on night 1?\n');
    const summarised = /^messages (\d+)\.\.(\d+) of "ops:import-log", summarised [^\n]*:\nstand-in summary: (.*)$/m.exec(walk.stdout);
    expect(summarised, output).not.toBeNull();
    const [fromId, toId] = [Number(summarised![1]), Number(summarised![2])];
    const nights = [...summarised![3]!.matchAll(/#(\d+) Night (\d+)\. The nightly…/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(nights.length, output).toBe(toId - fromId + 1);
    expect(nights, output).toEqual(nights.map((_, i) => [fromId + i, i + 1]));
    expect(nights.length, 'some nights left out, most sent').toBeGreaterThan(0);
    expect(nights.length, 'some nights left out, most sent').toBeLessThan(85);

    // And the gateway, asked directly, agrees: the minted agent has the messages and the tool server.
    const mintedTo = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    const testnet = stack.testnet;
    const token = await login(
      testnet,
      Object.assign(mintedTo, { privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const }),
    );
    const tokenId = /^agent (\d+) of (0x[0-9a-fA-F]{40}) at /m.exec(walk.stdout);
    expect(tokenId?.[2], output).toBe(testnet.collection);
    const agent = `/agent/${testnet.collection}/${tokenId![1]}`;
    const messages = await call<{ messages: { role: string; message: string }[] }>(
      testnet.baseUrl,
      `${agent}/context/${encodeURIComponent('customer:42/notes')}/messages`,
      { token },
    );
    expect(messages.status, messages.text).toBe(200);
    expect(messages.body.messages.map((m) => [m.role, m.message])).toEqual([
      ['user', 'I prefer email over phone.'],
      ['assistant', 'Noted: email only.'],
      ['user', 'use tool word_count one two three'],
      ['assistant', 'stand-in model: word_count answered: 3'],
    ]);
    const support = await call<{ messages: { role: string; message: string }[] }>(
      testnet.baseUrl,
      `${agent}/context/${encodeURIComponent('support:today')}/messages`,
      { token },
    );
    expect(support.status, support.text).toBe(200);
    expect(support.body.messages.map((m) => [m.role, m.message.split(':')[0]])).toEqual([
      ['user', 'use tool memory_search email'],
      ['assistant', 'stand-in model'],
    ]);
    const log = await call<{ messages: { id: number; message: string }[] }>(
      testnet.baseUrl,
      `${agent}/context/${encodeURIComponent('ops:import-log')}/messages?limit=1`,
      { token },
    );
    expect(log.status, log.text).toBe(200);
    expect(log.body.messages[0]!.id).toBe(fromId);
    expect(log.body.messages[0]!.message).toMatch(/^Night 1\. The nightly import moved the customer records/);
    const summary = await call<{ fromId: number; toId: number; summary: string }>(
      testnet.baseUrl,
      `${agent}/context/${encodeURIComponent('ops:import-log')}/summary`,
      { token },
    );
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body).toMatchObject({ fromId, toId });
    const connections = await call<{ connections: { url: string }[] }>(testnet.baseUrl, `${agent}/mcp/connections`, { token });
    expect(connections.status, connections.text).toBe(200);
    expect(connections.body.connections.map((c) => c.url)).toEqual([`http://127.0.0.1:${toolPort}/mcp`]);
  }, 270_000);

  it("says what npm install's EBADENGINE warnings on an older Node are, and each is for a package the project's own Node runs", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const claim = /about (\d+) lines of\s+`npm warn EBADENGINE Unsupported engine`: five for each of\s+(\d+) packages/.exec(readme);
    expect(claim, 'README says how many EBADENGINE lines to expect').not.toBeNull();
    // npm as the newcomer runs it (the machine's), on the lockfile, without installing: the same
    // engine check as npm install, offline.
    const dir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-engines-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) await copyFile(path.join(REPO_ROOT, file), path.join(dir, file));
    const env = { PATH: machinePath, HOME: dir, npm_config_cache: path.join(dir, 'cache') };
    const npm = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund', '--no-update-notifier'], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(npm.status, npm.stderr).toBe(0);
    const machineNode = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
    const lines = npm.stderr.split('\n').filter((line) => line.includes('EBADENGINE'));
    const warned = [...npm.stderr.matchAll(/EBADENGINE +package: '([^']+)',\n[^\n]*EBADENGINE +required: \{ node: '([^']+)' \}/g)];
    console.log(`readme-walk: npm install on ${machineNode} prints ${lines.length} EBADENGINE lines for ${warned.length} packages`);
    expect(lines.length, 'five lines a package').toBe(5 * warned.length);
    // Harmless: each package warned about accepts the Node every npm script and npx runs on.
    const projectNode = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
    for (const [, pkg, range] of warned)
      expect(meets(projectNode, range!), `${pkg} needs node ${range}, the project has ${projectNode}`).toBe(true);
    if (Number(/^v(\d+)/.exec(machineNode)?.[1]) < 22) {
      // The figures README gives, as npm prints them on a Node 20 machine (within a few packages).
      expect(Math.abs(warned.length - Number(claim![2])), npm.stderr).toBeLessThanOrEqual(2);
      expect(Math.abs(lines.length - Number(claim![1])), npm.stderr).toBeLessThanOrEqual(10);
    }
  }, 150_000);
});
