/**
 * `agent-gateway templates set|get|list` spawned as users run it, with a real login, against the
 * real worker: text from --text, a file and stdin, get round-tripping a file byte for byte, the
 * description kept unless changed, the list in byte order, bad input as usage errors (exit 2,
 * nothing sent) and the gateway's refusals with their codes (exit 1).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliAgent, cliAgent } from '../support/cli-agent';
import { runCli } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');
let owner: CliAgent;

beforeAll(async () => {
  owner = await cliAgent(testnet);
}, 60_000);
afterAll(() => owner?.remove());

describe('agent-gateway templates', () => {
  it('sets from --text, a file and stdin, gets them back unchanged, keeps the description, lists them in byte order', async () => {
    const empty = await runCli(['templates', 'list'], owner.env);
    expect(empty.code, empty.output).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('templates list: 0 templates');

    const text = await runCli(['templates', 'set', 'greeting', '--text', 'Hello {{name}}.', '--description', 'how to greet'], owner.env);
    expect(text.code, text.output).toBe(0);
    expect(text.stderr).toContain('templates set: greeting, 15 characters (how to greet)');

    const file = path.join(owner.dir, 'system.txt');
    const content = 'You are the warranty desk of {{shop}} 🛠.\n\nAnswer in {{language}}.\n';
    await writeFile(file, content);
    const fromFile = await runCli(['templates', 'set', 'System', '--file', file], owner.env);
    expect(fromFile.code, fromFile.output).toBe(0);
    const got = await runCli(['templates', 'get', 'System'], owner.env);
    expect(got.code, got.output).toBe(0);
    expect(got.stdout).toBe(content);

    const piped = await runCli(['templates', 'set', 'a:piped'], owner.env, 60_000, { input: 'From a pipe, no line break' });
    expect(piped.code, piped.output).toBe(0);
    expect((await runCli(['templates', 'get', 'a:piped'], owner.env)).stdout).toBe('From a pipe, no line break\n');

    // A new text keeps the description; --no-description removes it.
    expect((await runCli(['templates', 'set', 'greeting', '--text', 'Hi {{name}}!'], owner.env)).code).toBe(0);
    expect(await owner.agent.getPromptTemplate('greeting')).toMatchObject({ template: 'Hi {{name}}!', description: 'how to greet' });
    const json = await runCli(['templates', 'get', 'greeting', '--json'], owner.env);
    expect(JSON.parse(json.stdout)).toMatchObject({ key: 'greeting', template: 'Hi {{name}}!', description: 'how to greet' });
    expect((await runCli(['templates', 'set', 'greeting', '--text', 'Hi.', '--no-description'], owner.env)).code).toBe(0);
    expect((await owner.agent.getPromptTemplate('greeting')).description).toBeNull();

    const list = await runCli(['templates', 'list'], owner.env);
    expect(list.code, list.output).toBe(0);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t').slice(0, 2)),
    ).toEqual([
      ['System', String([...content].length)],
      ['a:piped', '26'],
      ['greeting', '3'],
    ]);
    expect(list.stderr).toContain('templates list: 3 templates');
    const listed = JSON.parse((await runCli(['templates', 'list', '--json'], owner.env)).stdout) as { key: string }[];
    expect(listed.map((t) => t.key)).toEqual(['System', 'a:piped', 'greeting']);
  });

  it.each([
    ['a key with a space', ['set', 'bad key', '--text', 'x'], 'key must be 1..128 characters'],
    ['no key', ['set', '--text', 'x'], 'missing argument'],
    ['an empty text', ['set', 'k', '--text', ''], 'the template:'],
    ['--text with --file', ['set', 'k', '--text', 'x', '--file', 'x.txt'], 'exclude each other'],
    ['a file that is not there', ['set', 'k', '--file', '/nonexistent/template.txt'], 'no such file'],
    ['a description over 1024 characters', ['set', 'k', '--text', 'x', '--description', 'd'.repeat(1025)], '--description:'],
    ['an unknown flag', ['list', '--all'], "Unknown option '--all'"],
  ])('refuses %s as a usage error (exit 2)', async (_, args, message) => {
    const res = await runCli(['templates', ...args], owner.env);
    expect(res.code, res.output).toBe(2);
    expect(res.stderr).toContain(message);
    await expect(owner.agent.getPromptTemplate('k')).rejects.toMatchObject({ code: 'prompt_template_not_found' });
  });

  it('refuses a file that is not UTF-8 text or holds a NUL (exit 2), and shows a missing template and a foreign agent with their codes (exit 1)', async () => {
    const latin1 = path.join(owner.dir, 'latin1.txt');
    await writeFile(latin1, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const notText = await runCli(['templates', 'set', 'k', '--file', latin1], owner.env);
    expect(notText.code, notText.output).toBe(2);
    expect(notText.stderr).toContain('is not UTF-8 text');

    const nul = path.join(owner.dir, 'nul.txt');
    await writeFile(nul, 'a\u0000b');
    const withNul = await runCli(['templates', 'set', 'k', '--file', nul], owner.env);
    expect(withNul.code, withNul.output).toBe(2);
    expect(withNul.stderr).toContain('the template: template must be well-formed text without NUL');

    const missing = await runCli(['templates', 'get', 'absent'], owner.env);
    expect(missing.code, missing.output).toBe(1);
    expect(missing.stderr).toContain('404 prompt_template_not_found');

    const other = await cliAgent(testnet);
    try {
      const foreign = await runCli(['templates', 'list'], { ...other.env, AGENT_TOKEN_ID: owner.tokenId.toString() });
      expect(foreign.code, foreign.output).toBe(1);
      expect(foreign.stderr).toContain('403 not_owner');
    } finally {
      await other.remove();
    }
  }, 60_000);
});
