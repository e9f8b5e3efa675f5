/**
 * `agent-gateway hydrate`, `contexts create/list` and `messages export` for real, against the
 * harness' testnet worker:
 * - 10,000 lines over 20 keys, the CLI SIGKILLed while the server holds 30..70% of them, then run
 *   again to the end: every key holds exactly its lines, in file order, nothing twice (the rerun's
 *   replays are exactly what the killed run stored);
 * - bad lines (invalid JSON, bad role, 1-character message, bad key) reported with their line
 *   numbers and written to the failed-lines file, while the good lines land; exit code 1;
 * - a missing key without --create-missing fails its lines with context_not_found;
 * - contexts create --file / contexts list --json, and messages export → hydrate round trips.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient, GatewayError, type AgentClient } from '../../src/client';
import { mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { cliEnv, runCli, spawnCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');
const ROLES = ['user', 'assistant', 'system'] as const;

let dir = '';
let removeDir: () => Promise<void> = async () => undefined;
let owner: TestAccount;
let tokenFile = '';
let token = '';

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  owner = newWallet();
  tokenFile = path.join(dir, 'token.json');
  const login = await runCli(
    ['login'],
    cliEnv({
      HOME: dir,
      AGENT_GATEWAY_URL: testnet.baseUrl,
      AGENT_GATEWAY_TOKEN_FILE: tokenFile,
      AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey,
    }),
  );
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  token = (JSON.parse(await readFile(tokenFile, 'utf8')) as { logins: Record<string, { token: string }> }).logins[testnet.baseUrl]!.token;
}, 60_000);
afterAll(() => removeDir());

/** A freshly minted agent of the logged-in owner: its CLI environment and a client for checks. */
async function newAgent(): Promise<{ tokenId: bigint; env: NodeJS.ProcessEnv; agent: AgentClient }> {
  const tokenId = await mintFreshAgent(testnet, owner.address);
  const env = cliEnv({
    HOME: dir,
    AGENT_GATEWAY_URL: testnet.baseUrl,
    AGENT_GATEWAY_TOKEN_FILE: tokenFile,
    AGENT_COLLECTION: testnet.collection,
    AGENT_TOKEN_ID: tokenId.toString(),
  });
  return { tokenId, env, agent: createGatewayClient({ baseUrl: testnet.baseUrl, token }).agent(testnet.collection, tokenId) };
}

interface Line {
  key: string;
  role: (typeof ROLES)[number];
  message: string;
}

async function writeJsonl(name: string, lines: (Line | string)[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return file;
}

/** Every stored message of a key, in order; [] when the key does not exist. */
async function readAll(agent: AgentClient, key: string) {
  const out = [];
  try {
    for await (const m of agent.messages(key)) out.push(m);
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'context_not_found') return [];
    throw err;
  }
  return out;
}

function expectedByKey(lines: Line[]): Map<string, Line[]> {
  const map = new Map<string, Line[]>();
  for (const line of lines) map.set(line.key, [...(map.get(line.key) ?? []), line]);
  return map;
}

async function expectExactly(agent: AgentClient, lines: Line[]): Promise<void> {
  for (const [key, expected] of expectedByKey(lines)) {
    const stored = await readAll(agent, key);
    expect(
      stored.map((m) => `${m.role}|${m.message}`),
      `key ${key}`,
    ).toEqual(expected.map((l) => `${l.role}|${l.message}`));
    for (let i = 1; i < stored.length; i++) expect(stored[i]!.id).toBeGreaterThan(stored[i - 1]!.id);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('hydrate: killed half-way, then run again', () => {
  it('10,000 lines over 20 keys end up stored exactly once each, in file order', async () => {
    const { env, agent } = await newAgent();
    const keys = Array.from({ length: 20 }, (_, i) => `resume:key-${String(i).padStart(2, '0')}`);
    // Keys interleaved in a fixed pseudo-random order, so per-key order is not just file blocks.
    let seed = 7;
    const lines: Line[] = Array.from({ length: 10_000 }, (_, i) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const key = keys[(seed >>> 16) % keys.length]!;
      return { key, role: ROLES[i % 3]!, message: `line ${i + 1} for ${key}` };
    });
    const expected = expectedByKey(lines);
    const file = await writeJsonl('resume.jsonl', lines);
    const args = ['hydrate', '--file', file, '--create-missing', '--json'];

    // Counts only grow: a key seen complete is not read again.
    const counts = new Map<string, number>(keys.map((k) => [k, 0]));
    const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
    const poll = async () => {
      await Promise.all(
        keys.map(async (key) => {
          if (counts.get(key) === expected.get(key)!.length) return;
          counts.set(key, (await readAll(agent, key)).length);
        }),
      );
      return total();
    };

    const first = spawnCli([...args, '--parallel', '2'], env);
    let exitedEarly = false;
    void first.exited.then(() => (exitedEarly = true));
    let atKill = -1;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !exitedEarly) {
      const held = await poll();
      if (held >= 3_000 && held <= 7_000) {
        first.child.kill('SIGKILL');
        atKill = held;
        break;
      }
      expect(held, 'the first run went past 70% between two polls').toBeLessThanOrEqual(7_000);
    }
    const killed = await first.exited;
    expect(atKill, `the CLI was not killed between 30% and 70%:\n${killed.output}`).toBeGreaterThanOrEqual(3_000);
    expect(killed.signal).toBe('SIGKILL');

    // Requests in flight at the kill may still commit: wait until the count stands still.
    let stored = await poll();
    for (let stable = 0; stable < 2; ) {
      await sleep(400);
      const again = await poll();
      stable = again === stored ? stable + 1 : 0;
      stored = again;
    }
    expect(stored).toBeGreaterThanOrEqual(atKill);
    expect(stored).toBeLessThan(10_000);

    const second = await runCli(args, env, 180_000);
    expect(second.code, second.output).toBe(0);
    const summary = JSON.parse(second.stdout) as { sent: number; replayed: number; failed: number; valid: number; batches: number };
    expect(summary).toMatchObject({ valid: 10_000, failed: 0, replayed: stored, sent: 10_000 - stored });
    expect(second.stderr).toMatch(/hydrate \[#+\] 100% 10000\/10000/);

    await expectExactly(agent, lines);
    let sum = 0;
    for (const key of keys) sum += (await readAll(agent, key)).length;
    expect(sum).toBe(10_000);

    // A third run stores nothing new: everything is a replay.
    const third = await runCli(args, env, 180_000);
    expect(third.code, third.output).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ sent: 0, replayed: 10_000 });
  }, 300_000);
});

/** The last plain progress line hydrate printed on stderr (not a terminal). */
function lastProgress(stderr: string): string {
  return (
    stderr
      .split('\n')
      .filter((l) => l.startsWith('hydrate ['))
      .at(-1) ?? ''
  );
}

describe('hydrate: bad lines', () => {
  it('are reported with their line numbers, written to the failed file and never sent; the good lines land; exit 1', async () => {
    const { env, agent } = await newAgent();
    const good: Line[] = [];
    const raw: (Line | string)[] = [];
    for (let n = 1; n <= 260; n++) {
      if (n === 3) raw.push('{"key": "bad:json", "role": "user", "message": "unterminated');
      else if (n === 7) raw.push({ key: 'bad:lines-a', role: 'robot' as never, message: 'beep boop' });
      else if (n === 11) raw.push({ key: 'bad:lines-b', role: 'user', message: 'x' });
      else if (n === 15) raw.push({ key: 'bad key!', role: 'user', message: 'has a space in its key' });
      else if (n === 20) raw.push('');
      else {
        const line: Line = { key: n % 2 ? 'bad:lines-a' : 'bad:lines-b', role: ROLES[n % 3]!, message: `good line ${n}` };
        good.push(line);
        raw.push(line);
      }
    }
    const file = await writeJsonl('bad-lines.jsonl', raw);
    const failedFile = path.join(dir, 'bad-lines.failed.out.jsonl');
    const result = await runCli(['hydrate', '--file', file, '--create-missing', '--failed-out', failedFile], env);
    expect(result.code, result.output).toBe(1);
    expect(result.stderr).toContain('line 3: invalid JSON');
    expect(result.stderr).toContain('line 7: role: must be one of user, system, assistant (got "robot")');
    expect(result.stderr).toContain('line 11: message: must be at least 2 characters');
    expect(result.stderr).toContain('line 15: key: may only contain');
    expect(result.stdout).toContain(`sent ${good.length}, replayed 0, failed 4 (4 invalid, 0 not stored) of 259 lines`);
    expect(result.stdout).toContain(`failed lines written to ${failedFile}`);
    // the report names the failed-lines file, and the progress counts failures as the summary does
    expect(result.stderr).toContain(`invalid lines, not sent (4, written to ${failedFile}):`);
    expect(lastProgress(result.stderr)).toMatch(new RegExp(`sent ${good.length} replayed 0 failed 4$`));

    const failed = (await readFile(failedFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; reason: string; raw?: string; message?: string });
    expect(failed.map((f) => f.line)).toEqual([3, 7, 11, 15]);
    expect(failed[0]).toMatchObject({
      raw: '{"key": "bad:json", "role": "user", "message": "unterminated',
      reason: expect.stringContaining('invalid JSON'),
    });
    expect(failed[1]).toMatchObject({ key: 'bad:lines-a', role: 'robot', message: 'beep boop', reason: expect.stringContaining('role') });
    expect(failed[2]).toMatchObject({ message: 'x', reason: 'message: must be at least 2 characters' });
    expect(failed[3]).toMatchObject({ key: 'bad key!', reason: expect.stringContaining('key') });

    await expectExactly(agent, good);
    expect(await readAll(agent, 'bad:json')).toEqual([]);
  }, 120_000);

  it('without --create-missing, lines of a missing key fail with context_not_found (default failed file); the others land', async () => {
    const { env, agent } = await newAgent();
    await agent.createContext('exists:yes');
    const lines: Line[] = Array.from({ length: 150 }, (_, i) => ({
      key: i % 3 === 0 ? 'exists:no' : 'exists:yes',
      role: 'user',
      message: `message ${i + 1}`,
    }));
    const file = await writeJsonl('missing-key.jsonl', lines);
    const result = await runCli(['hydrate', '--file', file], env);
    expect(result.code, result.output).toBe(1);
    expect(result.stderr).toContain('context_not_found');
    expect(result.stderr).toContain('--create-missing');
    const missing = lines.filter((l) => l.key === 'exists:no').length;
    expect(result.stderr).toContain(`lines not stored (${missing}, written to ${path.join(dir, 'missing-key.failed.jsonl')}):`);
    expect(result.stdout).toContain(`failed ${missing} (0 invalid, ${missing} not stored) of 150 lines`);
    expect(lastProgress(result.stderr)).toMatch(new RegExp(`failed ${missing}$`));
    const failed = (await readFile(path.join(dir, 'missing-key.failed.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; key: string; reason: string });
    expect(failed.map((f) => f.line)).toEqual(lines.flatMap((l, i) => (l.key === 'exists:no' ? [i + 1] : [])));
    expect(failed.every((f) => f.key === 'exists:no' && f.reason.includes('404 context_not_found'))).toBe(true);
    await expectExactly(
      agent,
      lines.filter((l) => l.key === 'exists:yes'),
    );
  }, 120_000);
});

describe('contexts create / list', () => {
  it('creates the keys of a file in batches, reports invalid ones by line, and lists them back', async () => {
    const { env } = await newAgent();
    const valid = Array.from({ length: 230 }, (_, i) => `project-${String(i).padStart(3, '0')}/notes`);
    const text = [
      '# keys for the import',
      '',
      ...valid.slice(0, 100),
      'bad key!',
      ...valid.slice(100),
      '   ',
      'project-000/notes',
      'x',
    ].join('\n');
    const keysFile = path.join(dir, 'keys.txt');
    await writeFile(keysFile, text);
    const created = await runCli(['contexts', 'create', '--file', keysFile], env);
    expect(created.code, created.output).toBe(1);
    expect(created.stdout).toContain('contexts create: 233 keys: created 230, exists 1, invalid 2');
    expect(created.stdout).toContain('line 103: "bad key!": may only contain A-Z a-z 0-9 . _ - : / @');
    expect(created.stdout).toContain('line 236: "x": must be at least 2 characters');

    const listed = await runCli(['contexts', 'list', '--json'], env);
    expect(listed.code, listed.output).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([...valid].sort());

    const again = await runCli(['contexts', 'create', '--file', keysFile, '--json'], env);
    const results = JSON.parse(again.stdout) as { line: number; key: string; status: string }[];
    expect(results.filter((r) => r.status === 'exists')).toHaveLength(231);
    expect(results.find((r) => r.line === 3)).toMatchObject({ key: valid[0], status: 'exists' });

    const onlyValid = path.join(dir, 'keys-valid.txt');
    await writeFile(onlyValid, valid.slice(0, 5).join('\n'));
    const ok = await runCli(['contexts', 'create', '--file', onlyValid], env);
    expect(ok.code, ok.output).toBe(0);
    expect(ok.stdout).toContain('created 0, exists 5, invalid 0');

    const searched = await runCli(['contexts', 'list', '--search=-01'], env);
    expect(searched.stdout.trim().split('\n')).toEqual(valid.filter((k) => k.includes('-01')));
  }, 120_000);
});

describe('messages export', () => {
  it('writes every message in order as {key, role, message, id, createdAt}, and the export hydrates another agent', async () => {
    const source = await newAgent();
    const lines: Line[] = Array.from({ length: 230 }, (_, i) => ({
      key: i % 5 === 0 ? 'other' : 'chat:1',
      role: ROLES[i % 3]!,
      message: `turn ${i + 1} ✓ "quoted"\nsecond line`,
    }));
    const file = await writeJsonl('export-source.jsonl', lines);
    const hydrated = await runCli(['hydrate', '--file', file, '--create-missing'], source.env);
    expect(hydrated.code, hydrated.output).toBe(0);

    const out = path.join(dir, 'export.jsonl');
    const exported = await runCli(['messages', 'export', '--key', 'chat:1', '--out', out], source.env);
    expect(exported.code, exported.output).toBe(0);
    const chat = lines.filter((l) => l.key === 'chat:1');
    expect(exported.stderr).toContain(`${chat.length} messages of "chat:1" written to ${out}`);
    const records = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; role: string; message: string; id: number; createdAt: string });
    expect(records.map((r) => ({ key: r.key, role: r.role, message: r.message }))).toEqual(chat);
    expect(records.every((r) => Number.isInteger(r.id) && !Number.isNaN(Date.parse(r.createdAt)))).toBe(true);
    for (let i = 1; i < records.length; i++) expect(records[i]!.id).toBeGreaterThan(records[i - 1]!.id);

    const target = await newAgent();
    const copied = await runCli(['hydrate', '--file', out, '--create-missing'], target.env);
    expect(copied.code, copied.output).toBe(0);
    const stdout = await runCli(['messages', 'export', '--key', 'chat:1'], target.env);
    expect(
      stdout.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line)
        .map(({ key, role, message }) => ({ key, role, message })),
    ).toEqual(chat);

    const missing = await runCli(['messages', 'export', '--key', 'no:such-key'], target.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('context_not_found');
  }, 120_000);
});
