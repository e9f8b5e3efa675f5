/**
 * `agent-gateway whoami --collection …`: how the logged-in wallet reaches its agents, as the
 * gateway answers it (GET /agent's role), against the harness' testnet worker and anvil: an agent
 * it owns, one a cold wallet delegated to it (delegate.xyz stand-in), one it rents (ERC-4907), and
 * one it may not reach at all; `agents list` naming the delegated one; the owner's `settings set
 * --delegates/--renters` (a delegate's attempt refused).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWallet, mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { chainTime, delegateERC721, mintRentable, rent } from '../support/delegation';
import { deployment } from '../support/http';

const testnet = deployment('testnet');
const collection = testnet.collection as Address;

let removeDir: () => Promise<void> = async () => undefined;
let home = '';
let env: NodeJS.ProcessEnv;
const hot = newWallet();
let cold: TestAccount;
let own: bigint;
let lent: bigint;
let stranger: bigint;

beforeAll(async () => {
  const { dir, remove } = await tempDir();
  removeDir = remove;
  home = dir;
  env = cliEnv({ HOME: dir, AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'token.json'), AGENT_GATEWAY_URL: testnet.baseUrl });
  cold = await fundedWallet(testnet.rpcUrl);
  const login = await runCli(['login'], { ...env, AGENT_GATEWAY_PRIVATE_KEY: hot.privateKey });
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  [own, lent, stranger] = await Promise.all([
    mintFreshAgent(testnet, hot.address),
    mintFreshAgent(testnet, cold.address),
    mintFreshAgent(testnet, newWallet().address),
  ]);
  await delegateERC721(testnet, cold, hot.address, collection, lent);
}, 120_000);
afterAll(() => removeDir());

describe('agent-gateway whoami with a collection', () => {
  it('lists each agent the wallet owns or may use as a delegate there, with its role', async () => {
    const who = await runCli(['whoami', '--collection', collection], env);
    expect(who.code, who.output).toBe(0);
    expect(who.stdout).toContain(`wallet      ${hot.address}`);
    expect(who.stdout).toContain(`agent       ${collection}/${own}  owner`);
    expect(who.stdout).toContain(`agent       ${collection}/${lent}  delegate of ${cold.address}`);
    expect(who.stdout).not.toContain(`/${stranger} `);

    // agents list keeps stdout to the wallet's own ids and names the delegated ones on stderr.
    const listed = await runCli(['agents', 'list', '--collection', collection], env);
    expect(listed.code, listed.output).toBe(0);
    expect(listed.stdout.trim()).toBe(String(own));
    expect(listed.stderr).toContain(`agents list: as a delegate you may use 1: ${lent} (of ${cold.address})`);
  });

  it('names one agent with --token-id: the renter of a rented one, no access to a stranger’s (exit 0)', async () => {
    const owner = await fundedWallet(testnet.rpcUrl);
    const rentable = testnet.rentableCollection as Address;
    const rented = await mintRentable(testnet, owner.address);
    await rent(testnet, owner, rentable, rented, hot.address, (await chainTime(testnet)) + 86_400n);
    const renter = await runCli(['whoami', '--collection', rentable, '--token-id', String(rented)], env);
    expect(renter.code, renter.output).toBe(0);
    expect(renter.stdout).toContain(`agent       ${rentable}/${rented}  renter of ${owner.address}`);

    const refused = await runCli(['whoami', '--collection', collection, '--token-id', String(stranger)], env);
    expect(refused.code, refused.output).toBe(0);
    expect(refused.stdout).toContain(`agent       ${collection}/${stranger}  no access (not_owner: `);
  });

  it('--json adds agents: role and owner, or the refusal', async () => {
    const json = await runCli(['whoami', '--json', '--token-id', String(lent)], { ...env, AGENT_COLLECTION: collection });
    expect(json.code, json.output).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      wallet: hot.address,
      expired: false,
      agents: [{ collection, tokenId: String(lent), role: 'delegate', owner: cold.address }],
    });
    const refused = await runCli(['whoami', '--json', '--collection', collection, '--token-id', String(stranger)], env);
    expect(JSON.parse(refused.stdout).agents).toEqual([
      { collection, tokenId: String(stranger), role: null, error: { status: 403, code: 'not_owner', message: expect.any(String) } },
    ]);
  });

  it('the owner’s settings set --delegates none refuses the delegate; the delegate cannot change it (403 not_owner)', async () => {
    const held = await mintFreshAgent(testnet, cold.address);
    await delegateERC721(testnet, cold, hot.address, collection, held);
    const agent = ['--collection', collection, '--token-id', String(held)];
    const coldEnv = {
      ...env,
      AGENT_GATEWAY_TOKEN_FILE: `${env.AGENT_GATEWAY_TOKEN_FILE}.cold`,
      AGENT_GATEWAY_PRIVATE_KEY: cold.privateKey,
    };
    const FIRST = [
      'settings',
      'set',
      ...agent,
      '--provider',
      'openai',
      '--model',
      'gpt-4.1-mini',
      '--temperature',
      '0',
      '--max-tokens',
      '64',
    ];
    const saved = await runCli([...FIRST, '--delegates', 'none'], coldEnv);
    expect(saved.code, saved.output).toBe(0);
    expect(saved.stdout).toMatch(/^access: +delegates none, renters use$/m);

    const refused = await runCli(['whoami', ...agent], env);
    expect(refused.code, refused.output).toBe(0);
    expect(refused.stdout).toContain(`agent       ${collection}/${held}  no access (not_owner: `);
    const change = await runCli(['settings', 'set', ...agent, '--delegates', 'admin'], env);
    expect(change.code, change.output).toBe(1);
    expect(change.stderr).toContain('not_owner');

    // --renters alone keeps the delegates' level; the delegate is back with use.
    const renters = await runCli(['settings', 'set', ...agent, '--renters', 'none'], coldEnv);
    expect(renters.stdout).toMatch(/^access: +delegates none, renters none$/m);
    await runCli(['settings', 'set', ...agent, '--delegates', 'use'], coldEnv);
    expect((await runCli(['whoami', ...agent], env)).stdout).toContain(`agent       ${collection}/${held}  delegate of ${cold.address}`);
  });

  it('a gateway that cannot be asked: the login is shown all the same, stderr says why, exit 1', async () => {
    const down = 'http://127.0.0.1:9';
    const file = path.join(home, 'down.json');
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const login = {
      token: `eyJhbGciOiJIUzI1NiJ9.${crypto.randomUUID()}.sig`,
      chainId: 80002,
      wallet: hot.address,
      baseUrl: down,
      expiresAt,
    };
    await writeFile(file, JSON.stringify({ logins: { [down]: login } }), { mode: 0o600 });
    const args = ['--base-url', down, '--token-file', file, '--collection', collection];
    const who = await runCli(['whoami', ...args], env);
    expect(who.code, who.output).toBe(1);
    expect(who.stdout).toContain(`wallet      ${hot.address}`);
    expect(who.stderr).toContain('agent-gateway: whoami: cannot reach the gateway at http://127.0.0.1:9');
    const json = await runCli(['whoami', '--json', ...args], env);
    expect(json.code, json.output).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ wallet: hot.address, expired: false, agents: null });
  });

  it('a bad collection address is a usage error, before any request', async () => {
    const bad = await runCli(['whoami', '--collection', '0x1234'], env);
    expect(bad.code, bad.output).toBe(2);
    expect(bad.stderr).toContain('--collection must be 0x + 40 hex');
  });
});
