/** `agent-gateway profile set|show` with the owner's login, through the typed client. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { call, deployment } from '../support/http';
import { agentPath } from '../support/login';

const testnet = deployment('testnet');
let owner: NodeJS.ProcessEnv;
let tokenId = '';
let removeDir: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const { dir, remove } = await tempDir();
  removeDir = remove;
  const wallet = newWallet();
  const base = {
    HOME: dir,
    AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'token.json'),
    AGENT_GATEWAY_URL: testnet.baseUrl,
    AGENT_COLLECTION: testnet.collection,
  };
  const login = await runCli(['login'], cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }));
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  tokenId = (await mintFreshAgent(testnet, wallet.address)).toString();
  owner = cliEnv({ ...base, AGENT_TOKEN_ID: tokenId });
}, 60_000);
afterAll(() => removeDir());

describe('agent-gateway profile', () => {
  it('sets the profile, shows it as active, and reports the gateway refusing a bad image', async () => {
    const none = await runCli(['profile', 'show'], owner);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('profile_not_found');

    const set = await runCli(
      ['profile', 'set', '--name', 'Warranty desk', '--description', 'Answers about orders.', '--image', 'https://example.com/a.png'],
      owner,
    );
    expect(set.code, set.output).toBe(0);
    expect(set.stderr).toContain(`/agent/${testnet.collection}/${tokenId}/registration.json`);

    const shown = await runCli(['profile', 'show', '--json'], owner);
    expect(shown.code, shown.output).toBe(0);
    const { profile, registration } = JSON.parse(shown.stdout) as {
      profile: { name: string };
      registration: { active: boolean; name: string };
    };
    expect(profile.name).toBe('Warranty desk');
    expect(registration).toMatchObject({ name: 'Warranty desk', active: true });
    const text = await runCli(['profile', 'show'], owner);
    expect(text.stdout).toMatch(/active:\s+true/);
    expect((await call(testnet.baseUrl, agentPath(testnet.collection, tokenId, '/registration.json'))).body).toEqual(registration);

    const bad = await runCli(['profile', 'set', '--name', 'x', '--description', 'y', '--image', 'http://example.com/a.png'], owner);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('validation_failed');
    const missing = await runCli(['profile', 'set', '--name', 'x'], owner);
    expect(missing.code).toBe(2);
  });
});
