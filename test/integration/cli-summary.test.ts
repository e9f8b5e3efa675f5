/**
 * `agent-gateway messages summary` for real against the harness' testnet worker: none yet (exit 1,
 * `summary_not_found`), then a stored summary as text and as --json (the typed client's answer).
 * The summary is stored through the gateway's own store function: writing one by a reply is
 * replies-summaries.test.ts's part.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGatewayClient } from '../../src/client';
import { agentSchemaName } from '../../src/storage/agent-storage';
import type { SqlClient } from '../../src/storage/sql-client';
import { storeSummary } from '../../src/summaries/summaries.service';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';

const stack = inject('stack');
const testnet = deployment('testnet');

let dir = '';
let removeDir: () => Promise<void> = async () => undefined;
let env: NodeJS.ProcessEnv;
let agent: ReturnType<ReturnType<typeof createGatewayClient>['agent']>;
let tokenId: bigint;
let ids: number[];

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  const owner = newWallet();
  const tokenFile = path.join(dir, 'token.json');
  const base = { HOME: dir, AGENT_GATEWAY_URL: testnet.baseUrl, AGENT_GATEWAY_TOKEN_FILE: tokenFile };
  const login = await runCli(['login'], cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  const token = (JSON.parse(await readFile(tokenFile, 'utf8')) as { logins: Record<string, { token: string }> }).logins[testnet.baseUrl]!
    .token;
  tokenId = await mintFreshAgent(testnet, owner.address);
  agent = createGatewayClient({ baseUrl: testnet.baseUrl, token }).agent(testnet.collection, tokenId);
  await agent.createContext('chat');
  const appended = await agent.appendMessages('chat', [
    { role: 'user', message: 'My order INV-2024-0042 has not arrived.' },
    { role: 'assistant', message: 'I asked the warehouse.' },
  ]);
  ids = appended.messages.map((m) => m.id);
  env = cliEnv({ ...base, AGENT_COLLECTION: testnet.collection, AGENT_TOKEN_ID: tokenId.toString() });
}, 60_000);
afterAll(() => removeDir());

describe('agent-gateway messages summary', () => {
  it('says there is none, then prints the stored summary as text and as JSON', async () => {
    const none = await runCli(['messages', 'summary', '--key', 'chat'], env);
    expect(none.code, none.output).toBe(1);
    expect(none.stderr).toContain('summary_not_found');

    const schema = await agentSchemaName({ chainId: testnet.chainId, collection: getAddress(testnet.collection), tokenId });
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    try {
      const text = 'The customer waits for order INV-2024-0042; the warehouse was asked.';
      await storeSummary(pool as unknown as SqlClient, schema, { contextKey: 'chat', summary: text, fromId: ids[0]!, toId: ids[1]! });
      const shown = await runCli(['messages', 'summary', '--key', 'chat'], env);
      expect(shown.code, shown.output).toBe(0);
      expect(shown.stdout).toContain(`messages ${ids[0]}..${ids[1]} of "chat"`);
      expect(shown.stdout).toContain(text);
      const json = await runCli(['messages', 'summary', '--key', 'chat', '--json'], env);
      expect(json.code, json.output).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual(await agent.readSummary('chat'));
    } finally {
      await pool.end();
    }
  });
});
