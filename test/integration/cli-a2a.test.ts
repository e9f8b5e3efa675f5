/** `agent-gateway a2a card`: the public A2A Agent Card as JSON, with no login and no credential sent. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { call, deployment } from '../support/http';
import { agentPath } from '../support/login';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
let dir = '';
let removeDir: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
});
afterAll(async () => {
  await removeDir();
  await closePg();
});

/** No token file, no key, no private key: the command must not need any. */
const env = (collection: string, tokenId: bigint | string) =>
  cliEnv({
    HOME: dir,
    AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'no-token.json'),
    AGENT_GATEWAY_URL: testnet.baseUrl,
    AGENT_COLLECTION: collection,
    AGENT_TOKEN_ID: tokenId.toString(),
  });

describe('agent-gateway a2a card', () => {
  it('prints the card as JSON on stdout, where it is on stderr, without a login', async () => {
    const agent = await freshAgent(testnet);
    const none = await runCli(['a2a', 'card'], env(agent.collection, agent.tokenId));
    expect(none.code, none.output).toBe(1);
    expect(none.stderr).toContain('profile_not_found');
    expect(none.stderr).toContain('agent-gateway profile set');
    expect(none.stdout).toBe('');

    await agent.call('/profile', { method: 'PUT', json: { name: 'Warranty desk', description: 'Answers about orders.' } });
    const res = await runCli(['a2a', 'card'], env(agent.collection, agent.tokenId));
    expect(res.code, res.output).toBe(0);
    const printed = JSON.parse(res.stdout) as { name: string; supportedInterfaces: { url: string }[] };
    const served = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/.well-known/agent-card.json'));
    expect(printed).toEqual(served.body);
    expect(printed.name).toBe('Warranty desk');
    expect(res.stderr).toContain(`${testnet.baseUrl}/agent/${agent.collection}/${agent.tokenId}/.well-known/agent-card.json`);
    expect(res.stderr).toContain(printed.supportedInterfaces[0]!.url);
  });

  it('says what is wrong: an unregistered collection (1), a bad token id or a missing agent (2)', async () => {
    const unregistered = await runCli(['a2a', 'card'], env(newWallet().address, 1n));
    expect(unregistered.code, unregistered.output).toBe(1);
    expect(unregistered.stderr).toContain('agent_not_found');
    const bad = await runCli(['a2a', 'card'], env(testnet.collection, '01'));
    expect(bad.code, bad.output).toBe(2);
    const missing = await runCli(['a2a', 'card'], cliEnv({ HOME: dir, AGENT_GATEWAY_URL: testnet.baseUrl }));
    expect(missing.code, missing.output).toBe(2);
    expect(missing.stderr).toContain('which agent?');
  });
});
