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
    // --wait asks again for its seconds, then says there is none all the same.
    const started = Date.now();
    const waited = await runCli(['messages', 'summary', '--key', 'chat', '--wait', '2'], env);
    expect(waited.code, waited.output).toBe(1);
    expect(waited.stderr).toContain('summary_not_found');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    for (const bad of ['0', '301', '1.5', 'soon']) {
      const refused = await runCli(['messages', 'summary', '--key', 'chat', '--wait', bad], env);
      expect(refused.code, refused.output).toBe(2);
      expect(refused.stderr).toContain('--wait must be a whole number from 1 to 300');
    }

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

  it('--wait prints a summary stored while it waits', async () => {
    await agent.createContext('later');
    const appended = await agent.appendMessages('later', [{ role: 'user', message: 'A message a reply will leave out.' }]);
    const id = appended.messages[0]!.id;
    const schema = await agentSchemaName({ chainId: testnet.chainId, collection: getAddress(testnet.collection), tokenId });
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    try {
      const waiting = runCli(['messages', 'summary', '--key', 'later', '--wait', '30'], env);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await storeSummary(pool as unknown as SqlClient, schema, {
        contextKey: 'later',
        summary: 'Stored while it waited.',
        fromId: id,
        toId: id,
      });
      const shown = await waiting;
      expect(shown.code, shown.output).toBe(0);
      expect(shown.stdout).toContain(`messages ${id}..${id} of "later"`);
      expect(shown.stdout).toContain('Stored while it waited.');
    } finally {
      await pool.end();
    }
  });
});
