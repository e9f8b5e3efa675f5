import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli';
import { cliAgent } from '../support/cli-agent';
import { deployment } from '../support/http';

const testnet = deployment('testnet');
const keys = Array.from({ length: 230 }, (_, i) => `item-${String(i).padStart(3, '0')}`);

let dir = '';
let removeDir: () => Promise<void> = async () => undefined;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const made = await cliAgent(testnet);
  ({ dir, remove: removeDir, env } = made);
  const { agent } = made;
  for (let i = 0; i < keys.length; i += 100) await agent.createContexts(keys.slice(i, i + 100));
}, 60_000);
afterAll(() => removeDir());

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('agent-gateway contexts list', () => {
  it('prints one page after --after, and the next cursor on stderr; following it reaches the end', async () => {
    const first = await runCli(['contexts', 'list', '--after', 'item-099', '--limit', '50'], env);
    expect(first.code, first.output).toBe(0);
    expect(lines(first.stdout)).toEqual(keys.slice(100, 150));
    expect(first.stderr).toContain('more keys follow: --after item-149');

    const seen: string[] = [];
    let after = 'item-149';
    for (let i = 0; i < 5; i++) {
      const page = await runCli(['contexts', 'list', '--after', after, '--limit', '50', '--json'], env);
      expect(page.code, page.output).toBe(0);
      const body = JSON.parse(page.stdout) as { contextKeys: string[]; nextAfter: string | null; totalElements: number };
      expect(body.totalElements).toBe(230);
      seen.push(...body.contextKeys);
      if (body.nextAfter === null) {
        expect(page.stderr).toContain('no more keys');
        break;
      }
      after = body.nextAfter;
    }
    expect(seen).toEqual(keys.slice(150));
  }, 120_000);

  it('--limit alone prints the first page; --desc turns --after around', async () => {
    const top = await runCli(['contexts', 'list', '--limit', '3'], env);
    expect(lines(top.stdout)).toEqual(keys.slice(0, 3));
    expect(top.stderr).toContain('--after item-002');
    const down = await runCli(['contexts', 'list', '--after', 'item-010', '--limit', '3', '--desc'], env);
    expect(lines(down.stdout)).toEqual(['item-009', 'item-008', 'item-007']);
  }, 60_000);

  it('--all walks every page by cursor from --after, with progress on stderr; no option lists every key', async () => {
    const all = await runCli(['contexts', 'list', '--all', '--after', 'item-019', '--limit', '40', '--search', 'ITEM'], env);
    expect(all.code, all.output).toBe(0);
    expect(lines(all.stdout)).toEqual(keys.slice(20));
    expect(all.stderr).toMatch(/contexts list \[[#.]+\] \d+% \d+\/230 /); // progress against every matching key
    expect(all.stderr).toContain('contexts list: 210 keys listed (230 match in all)');
    const every = await runCli(['contexts', 'list', '--json', '--desc'], env);
    expect(JSON.parse(every.stdout)).toEqual([...keys].reverse());
  }, 60_000);

  it.each([
    [['--after', 'a'], '--after must be at least 2 characters'],
    [['--after', 'bad key'], '--after may only contain'],
    [['--after', 'conversation-context-discovery/x'], '--after must not start with the reserved prefix'],
    [['--limit', '0'], '--limit must be a whole number from 1 to 100'],
    [['--limit', '101'], '--limit must be a whole number from 1 to 100'],
    [['--limit', 'ten'], '--limit must be a whole number from 1 to 100'],
  ])('refuses %j with a usage error (exit 2) before any request', async (args, message) => {
    const res = await runCli(['contexts', 'list', ...args], cliEnv({ HOME: dir, AGENT_GATEWAY_URL: 'http://127.0.0.1:9' }));
    expect(res.code, res.output).toBe(2);
    expect(res.stderr).toContain(message);
  });
});
