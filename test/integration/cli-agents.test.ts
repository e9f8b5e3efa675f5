/**
 * `agent-gateway agents list`: the logged-in wallet's agents of a collection, one id per line on
 * stdout (or the answer with --json), against the harness' testnet worker and anvil.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');

let removeDir: () => Promise<void> = async () => undefined;
let env: NodeJS.ProcessEnv;
const minted: bigint[] = [];

beforeAll(async () => {
  const { dir, remove } = await tempDir();
  removeDir = remove;
  const wallet = newWallet();
  env = cliEnv({ HOME: dir, AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'token.json'), AGENT_GATEWAY_URL: testnet.baseUrl });
  const [login] = await Promise.all([
    runCli(['login'], { ...env, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }),
    (async () => {
      for (let i = 0; i < 2; i++) minted.push(await mintFreshAgent(testnet, wallet.address));
    })(),
  ]);
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
}, 60_000);
afterAll(() => removeDir());

describe('agent-gateway agents list', () => {
  it("prints the wallet's token ids, ascending, one per line; --json prints the answer", async () => {
    const listed = await runCli(['agents', 'list', '--collection', testnet.collection], env);
    expect(listed.code, listed.output).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual(minted.map(String));
    expect(listed.stderr).toContain('agents list: 2 agents of');

    const json = await runCli(['agents', 'list', '--json'], { ...env, AGENT_COLLECTION: testnet.collection });
    expect(json.code, json.output).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      enumerable: true,
      truncated: false,
      tokens: minted.map((id) => ({ tokenId: String(id) })),
    });
  });

  it('needs a collection (exit 2), and says which one the deployment does not know (exit 1)', async () => {
    const none = await runCli(['agents', 'list'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--collection');
    const unknown = await runCli(['agents', 'list', '--collection', newWallet().address], env);
    expect(unknown.code, unknown.output).toBe(1);
    expect(unknown.stderr).toContain('collection_not_found');
  });

  it('is in the help', async () => {
    const help = await runCli(['--help'], env);
    expect(help.stdout).toMatch(/agents list\s+list your wallet's agents/);
  });
});
