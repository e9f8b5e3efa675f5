import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { cliAgent } from '../support/cli-agent';
import { deployment } from '../support/http';

const testnet = deployment('testnet');

let removeDir: () => Promise<void> = async () => undefined;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const made = await cliAgent(testnet);
  ({ remove: removeDir, env } = made);
  const { agent } = made;
  await agent.createContexts(['customer:1/notes', 'customer:2/notes', 'chat:main']);
  await agent.appendMessages('customer:1/notes', [
    { role: 'user', message: 'Invoice INV-2024-0042 is overdue.\nThe customer asked twice.' },
    { role: 'assistant', message: 'I sent a reminder about the overdue invoice.' },
  ]);
  await agent.appendMessages(
    'customer:2/notes',
    Array.from({ length: 25 }, (_, i) => ({ role: 'user' as const, message: `Invoice number ${i} was paid.` })),
  );
  await agent.appendMessage('chat:main', { role: 'user', message: 'Where is my invoice?' });
  // The typed client's own search, with the same filters the CLI sends.
  const page = await agent.search({ query: 'overdue', contextPrefix: 'customer:1' });
  expect(page.hits.map((h) => h.id)).toHaveLength(2);
}, 60_000);
afterAll(() => removeDir());

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('agent-gateway search', () => {
  it('prints a table of one page, best first, and the next cursor on stderr; --all walks every page', async () => {
    const page = await runCli(['search', 'invoice'], env);
    expect(page.code, page.output).toBe(0);
    const rows = lines(page.stdout);
    expect(rows).toHaveLength(20);
    expect(rows[0]!.split('\t')).toHaveLength(6);
    const cursor = /more: --cursor (\S+)/.exec(page.stderr)?.[1];
    expect(cursor, page.stderr).toBeDefined();
    const rest = await runCli(['search', 'invoice', '--cursor', cursor!], env);
    expect(rest.code, rest.output).toBe(0);
    expect(lines(rest.stdout)).toHaveLength(8);
    expect(rest.stderr).toContain('no more');

    const all = await runCli(['search', 'invoice', '--all', '--limit', '7', '--jsonl'], env);
    expect(all.code, all.output).toBe(0);
    const hits = lines(all.stdout).map((l) => JSON.parse(l) as { id: number; message: string; score: number; contextKey: string });
    expect(hits).toHaveLength(28);
    expect(new Set(hits.map((h) => h.id)).size).toBe(28);
    expect(hits.map((h) => `${h.contextKey}\t${h.id}`)).toEqual(
      [...lines(page.stdout), ...lines(rest.stdout)].map((r) => r.split('\t').slice(1, 3).join('\t')),
    );
  });

  it('takes the filters as flags; the table keeps a message on one line, --jsonl keeps it whole', async () => {
    const table = await runCli(['search', 'overdue', '--context', 'customer:1/notes', '--context', 'chat:main', '--role', 'user'], env);
    expect(table.code, table.output).toBe(0);
    expect(lines(table.stdout)).toHaveLength(1);
    expect(table.stdout).toContain('Invoice INV-2024-0042 is overdue. The customer asked twice.');
    const jsonl = await runCli(['search', 'overdue', '--prefix', 'customer:', '--role', 'assistant', '--jsonl'], env);
    expect(jsonl.code, jsonl.output).toBe(0);
    expect(lines(jsonl.stdout).map((l) => JSON.parse(l).message)).toEqual(['I sent a reminder about the overdue invoice.']);
    const phrase = await runCli(['search', '--jsonl', '--', '"overdue invoice" -reminder'], env);
    expect(phrase.code, phrase.output).toBe(0);
    expect(lines(phrase.stdout)).toEqual([]);
    const identifier = await runCli(['search', 'INV-2024-0042', '--jsonl'], env);
    expect(JSON.parse(lines(identifier.stdout)[0]!).message).toContain('INV-2024-0042');
  });

  it('refuses a bad --limit or --role before any request, and reports a refused request', async () => {
    for (const args of [['search', 'x1', '--limit', '0'], ['search', 'x1', '--role', 'robot'], ['search']]) {
      const run = await runCli(args, env);
      expect(run.code, run.output).toBe(2);
    }
    const refused = await runCli(['search', 'invoice', '--after', 'yesterday'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('400 validation_failed');
  });
});
