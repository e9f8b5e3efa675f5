/**
 * `agent-gateway keys create|list|revoke` and `agent-gateway audit` with the owner's login, and the
 * data commands with an agent key instead of a login (AGENT_GATEWAY_API_KEY or --api-key-env NAME):
 * a nightly hydrate holds no wallet, its key never printed; a revoked key stops the next run.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');

let dir = '';
let removeDir: () => Promise<void> = async () => undefined;
/** The owner's environment: a saved login, the agent. */
let owner: NodeJS.ProcessEnv;
/** A pipeline's environment: no login, no wallet; only the agent and a fresh HOME. */
let pipeline: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  const wallet = newWallet();
  const agentVars = { AGENT_GATEWAY_URL: testnet.baseUrl, AGENT_COLLECTION: testnet.collection };
  const base = { HOME: dir, AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'token.json'), ...agentVars };
  const login = await runCli(['login'], cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }));
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  const tokenId = (await mintFreshAgent(testnet, wallet.address)).toString();
  owner = cliEnv({ ...base, AGENT_TOKEN_ID: tokenId });
  const { dir: elsewhere } = await tempDir('agent-gateway-pipeline-');
  pipeline = cliEnv({ HOME: elsewhere, ...agentVars, AGENT_TOKEN_ID: tokenId });
}, 60_000);
afterAll(() => removeDir());

describe('agent-gateway keys', () => {
  it('creates a key (printed once, alone on stdout), lists it without the key, revokes it', async () => {
    const created = await runCli(
      ['keys', 'create', '--name', 'nightly', '--scope', 'contexts:read,contexts:write', '--expires-in', '30d'],
      owner,
    );
    expect(created.code, created.output).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^agk_[a-z2-7]{32}$/);
    expect(created.stderr).toContain('not shown again');
    expect(created.stderr).not.toContain(key);

    const listed = await runCli(['keys', 'list', '--json'], owner);
    expect(listed.code, listed.output).toBe(0);
    const [entry, ...rest] = JSON.parse(listed.stdout) as { id: string; name: string; scopes: string[]; expiresAt: string }[];
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ name: 'nightly', scopes: ['contexts:read', 'contexts:write'] });
    expect(listed.output).not.toContain(key);

    const revoked = await runCli(['keys', 'revoke', entry!.id], owner);
    expect(revoked.code, revoked.output).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${entry!.id}`);
    const again = await runCli(['keys', 'revoke', entry!.id], owner);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('agent_key_not_found');
  });

  it('refuses bad options before any request, and an agent key for managing keys', async () => {
    const noScope = await runCli(['keys', 'create', '--name', 'x'], owner);
    expect([noScope.code, noScope.stderr]).toEqual([2, expect.stringContaining('--scope is required')]);
    const badScope = await runCli(['keys', 'create', '--name', 'x', '--scope', 'admin'], owner);
    expect([badScope.code, badScope.stderr]).toEqual([2, expect.stringContaining('unknown scope "admin"')]);
    const badTime = await runCli(['keys', 'create', '--name', 'x', '--scope', 'reply', '--expires-in', '3w'], owner);
    expect([badTime.code, badTime.stderr]).toEqual([2, expect.stringContaining('--expires-in')]);
    const keyed = await runCli(['keys', 'list', '--api-key-env', 'MY_KEY'], { ...owner, MY_KEY: `agk_${'a'.repeat(32)}` });
    expect([keyed.code, keyed.stderr]).toEqual([2, expect.stringContaining("needs the owner's login")]);
  });
});

describe('agent-gateway audit', () => {
  it("prints the agent's audit trail newest first, as a table under a header row (wallets checksummed) or JSON; --limit bounds it", async () => {
    const created = await runCli(['keys', 'create', '--name', 'audited', '--scope', 'reply', '--json'], owner);
    expect(created.code, created.output).toBe(0);
    const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
    expect((await runCli(['keys', 'revoke', id], owner)).code).toBe(0);

    const json = await runCli(['audit', '--json', '--limit', '2'], owner);
    expect(json.code, json.output).toBe(0);
    const entries = JSON.parse(json.stdout) as { action: string; target: { keyId?: string }; outcome: string }[];
    expect(entries.map((e) => [e.action, e.target.keyId, e.outcome])).toEqual([
      ['agent_key.revoke', id, 'ok'],
      ['agent_key.create', id, 'ok'],
    ]);
    const table = await runCli(['audit', '--limit', '1'], owner);
    expect(table.code, table.output).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    // A header row naming the columns, then the entry, aligned under it.
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split(/ {2,}/)).toEqual(['id', 'time', 'actor', 'action', 'target', 'outcome', 'ms', 'arguments sha256']);
    const cells = lines[1]!.split(/ {2,}/);
    expect(cells.slice(3)).toEqual(['agent_key.revoke', `keyId=${id}`, 'ok', '-', '-']);
    expect(lines[1]!.indexOf('agent_key.revoke')).toBe(lines[0]!.indexOf('action'));
    // The owner's wallet checksummed (EIP-55), as whoami prints it; the gateway answers it in lower case.
    const whoami = await runCli(['whoami', '--json'], owner);
    const { wallet } = JSON.parse(whoami.stdout) as { wallet: string };
    expect(wallet).toBe(getAddress(wallet));
    expect(wallet).not.toBe(wallet.toLowerCase());
    expect(cells[2]).toBe(wallet);
    expect(JSON.parse(json.stdout)[0].actor).toEqual({ wallet: wallet.toLowerCase() });
    expect(table.stderr).toContain('audit: 1 entries');
    expect(table.output).not.toContain(key);
    const bad = await runCli(['audit', '--limit', '0'], owner);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--limit')]);
  });
});

describe('data commands with an agent key', () => {
  it('a nightly hydrate with AGENT_GATEWAY_API_KEY, then an export with --api-key-env; the key is never printed; revoked, the next run fails', async () => {
    const created = await runCli(['keys', 'create', '--name', 'pipeline', '--scope', 'contexts:write', '--scope', 'contexts:read'], owner);
    const key = created.stdout.trim();
    const file = path.join(dir, 'nightly.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ key: 'crm/42', role: 'user', message: 'prefers email' })}\n${JSON.stringify({ key: 'crm/42', role: 'assistant', message: 'noted' })}\n`,
    );
    const hydrate = await runCli(['hydrate', '--file', file, '--create-missing'], { ...pipeline, AGENT_GATEWAY_API_KEY: key });
    expect(hydrate.code, hydrate.output).toBe(0);
    expect(hydrate.output).not.toContain(key);

    const exported = await runCli(['messages', 'export', '--key', 'crm/42', '--api-key-env', 'CRM_KEY'], { ...pipeline, CRM_KEY: key });
    expect(exported.code, exported.output).toBe(0);
    expect(
      exported.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { message: string }).message),
    ).toEqual(['prefers email', 'noted']);
    const listed = await runCli(['contexts', 'list'], { ...pipeline, AGENT_GATEWAY_API_KEY: key });
    expect([listed.code, listed.stdout.trim()]).toEqual([0, 'crm/42']);

    const missing = await runCli(['contexts', 'list', '--api-key-env', 'NOPE'], pipeline);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('NOPE is not set')]);
    const malformed = await runCli(['contexts', 'list'], { ...pipeline, AGENT_GATEWAY_API_KEY: 'hunter2-not-a-key' });
    expect([malformed.code, malformed.stderr]).toEqual([2, expect.stringContaining('does not hold an agent key')]);
    expect(malformed.output).not.toContain('hunter2-not-a-key');

    const { id } = (JSON.parse((await runCli(['keys', 'list', '--json'], owner)).stdout) as { id: string }[])[0]!;
    expect((await runCli(['keys', 'revoke', id], owner)).code).toBe(0);
    const refused = await runCli(['contexts', 'list'], { ...pipeline, AGENT_GATEWAY_API_KEY: key });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('key_revoked');
    expect(refused.output).not.toContain(key);
  });
});
