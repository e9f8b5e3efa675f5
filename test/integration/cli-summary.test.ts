import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { createGatewayClient } from '../../src/client';
import { agentSchemaName } from '../../src/storage/agent-storage';
import type { SqlClient } from '../../src/storage/sql-client';
import { storeSummary } from '../../src/summaries/summaries.service';
import { runCli } from '../support/cli';
import { cliAgent } from '../support/cli-agent';
import { deployment } from '../support/http';

const stack = inject('stack');
const testnet = deployment('testnet');

let removeDir: () => Promise<void> = async () => undefined;
let env: NodeJS.ProcessEnv;
let agent: ReturnType<ReturnType<typeof createGatewayClient>['agent']>;
let tokenId: bigint;
let ids: number[];

beforeAll(async () => {
  ({ remove: removeDir, tokenId, agent, env } = await cliAgent(testnet));
  await agent.createContext('chat');
  const appended = await agent.appendMessages('chat', [
    { role: 'user', message: 'My order INV-2024-0042 has not arrived.' },
    { role: 'assistant', message: 'I asked the warehouse.' },
  ]);
  ids = appended.messages.map((m) => m.id);
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
