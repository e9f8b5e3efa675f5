/**
 * `agent-gateway oauth grants|revoke` with the owner's login: the grant a full OAuth flow made is
 * listed (never a token), revoked, and its access token refused on the MCP route.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { oauthTokens } from '../support/oauth';

const testnet = deployment('testnet');

let removeDir: () => Promise<void> = async () => undefined;
let owner: NodeJS.ProcessEnv;
let wallet: TestAccount;
let tokenId = 0n;

beforeAll(async () => {
  const made = await tempDir();
  removeDir = made.remove;
  wallet = newWallet();
  const base = {
    HOME: made.dir,
    AGENT_GATEWAY_TOKEN_FILE: path.join(made.dir, 'token.json'),
    AGENT_GATEWAY_URL: testnet.baseUrl,
    AGENT_COLLECTION: testnet.collection,
  };
  const login = await runCli(['login'], cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }));
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  tokenId = await mintFreshAgent(testnet, wallet.address);
  owner = cliEnv({ ...base, AGENT_TOKEN_ID: tokenId.toString() });
}, 60_000);
afterAll(() => removeDir());

describe('agent-gateway oauth', () => {
  it('lists the grant (table and --json, never a token), revokes it; the access token is refused after', async () => {
    const { clientId, tokens } = await oauthTokens(testnet, { owner: wallet, collection: testnet.collection, tokenId });
    const grantId = tokens.access_token.split(':')[1] ?? '';

    const table = await runCli(['oauth', 'grants'], owner);
    expect(table.code, table.output).toBe(0);
    expect(table.stdout.trim().split('\t')).toEqual([grantId, clientId, 'Test MCP client', 'mcp', expect.any(String), 'yes', 'mcp']);
    expect(table.stderr).toContain('1 grants');

    const json = await runCli(['oauth', 'grants', '--json'], owner);
    expect(json.code, json.output).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ id: grantId, clientId, refreshTokenLive: true })]);
    for (const out of [table.output, json.output]) {
      expect(out).not.toContain(tokens.access_token.split(':')[2]);
      expect(out).not.toContain(tokens.refresh_token.split(':')[2]);
    }

    const revoked = await runCli(['oauth', 'revoke', grantId], owner);
    expect(revoked.code, revoked.output).toBe(0);
    expect(revoked.stdout).toContain(`revoked grant ${grantId} of client ${clientId}`);
    const again = await runCli(['oauth', 'revoke', grantId], owner);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('oauth_grant_not_found');
    // One grant id in 32 begins with '-': it is still an argument, pasted as listed.
    const dashed = await runCli(['oauth', 'revoke', `-${grantId.slice(1)}`], owner);
    expect(dashed.code, dashed.output).toBe(1);
    expect(dashed.stderr).toContain('oauth_grant_not_found');

    const mcp = await call(testnet.baseUrl, agentPath(testnet.collection, tokenId, '/mcp'), {
      method: 'POST',
      token: tokens.access_token,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expectError(mcp, 401, 'invalid_token');
    expect((await runCli(['oauth', 'grants', '--json'], owner)).stdout.trim()).toBe('[]');
  });
});
