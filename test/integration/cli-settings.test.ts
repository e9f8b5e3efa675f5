/**
 * `agent-gateway settings set|show` spawned as users run it, with a real login, against the real
 * worker: a settings round trip read back with the typed client, the API key taken from the
 * environment and never printed, flags kept when not given, bad flags as usage errors (exit 2,
 * nothing sent), the gateway's refusals with their codes (exit 1), and `--standin` from a dev
 * stack file on a worker with the local stack's loopback switch.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { normalizeBaseUrl } from '../../src/cli/gateway-url';
import { saveToken } from '../../src/cli/token-file';
import { freshAgent } from '../support/agent';
import { type CliAgent, cliAgent } from '../support/cli-agent';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';
import { loopbackWorker } from '../support/loopback-worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const SECRET = `sk-cli-${crypto.randomUUID()}`;
const FIRST = ['settings', 'set', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--temperature', '0.3', '--max-tokens', '4096'];
let owner: CliAgent;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  owner = await cliAgent(testnet);
  cleanups.push(owner.remove);
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('agent-gateway settings', () => {
  it('sets the settings with the key from an environment variable, shows them, never prints the key', async () => {
    const none = await runCli(['settings', 'show'], owner.env);
    expect(none.code, none.output).toBe(1);
    expect(none.stderr).toContain('404 llm_settings_not_found');
    expect(none.stderr).toContain('agent-gateway settings set');

    const incomplete = await runCli(['settings', 'set', '--provider', 'openai', '--model', 'gpt-4.1-mini'], owner.env);
    expect(incomplete.code, incomplete.output).toBe(2);
    expect(incomplete.stderr).toContain('--temperature is required');

    const env = { ...owner.env, MY_LLM_KEY: SECRET };
    const set = await runCli([...FIRST, '--key-env', 'MY_LLM_KEY', '--tokens-per-day', '5000', '--summaries', 'off'], env);
    expect(set.code, set.output).toBe(0);
    expect(set.output).not.toContain(SECRET);
    expect(set.stdout).toMatch(/^API key: +set$/m);
    expect(await owner.agent.getLlmSettings()).toMatchObject({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      temperature: 0.3,
      maxTokens: 4096,
      baseUrl: null,
      apiKeySet: true,
      limits: { tokensPerDay: 5000 },
      summaries: false,
    });

    // What is not given is kept, the key included.
    const model = await runCli(['settings', 'set', '--model', 'gpt-4.1'], env);
    expect(model.code, model.output).toBe(0);
    const shown = await runCli(['settings', 'show', '--json'], env);
    expect(shown.code, shown.output).toBe(0);
    expect(shown.output).not.toContain(SECRET);
    const json = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ model: 'gpt-4.1', temperature: 0.3, apiKeySet: true, credential: 'set', limits: { tokensPerDay: 5000 } });
    expect(Object.keys(json)).not.toContain('apiKey');
    const text = await runCli(['settings', 'show'], env);
    expect(text.stdout).toMatch(/^model: +gpt-4\.1$/m);
    expect(text.stdout).toMatch(/^tokens per day: +5000$/m);
    expect(text.stdout).toMatch(/^summaries: +off$/m);

    // Another provider drops the key (it never follows another provider): said on stderr.
    const moved = await runCli(['settings', 'set', '--provider', 'anthropic', '--model', 'claude-sonnet-4'], env);
    expect(moved.code, moved.output).toBe(0);
    expect(moved.stderr).toContain('the API key is needed again');
    const removed = await runCli(['settings', 'set', '--no-key', '--tokens-per-day', 'none', '--summaries', 'on'], env);
    expect(removed.code, removed.output).toBe(0);
    expect(await owner.agent.getLlmSettings()).toMatchObject({
      provider: 'anthropic',
      credential: 'none',
      limits: { tokensPerDay: null },
      summaries: true,
    });
  });

  it.each([
    ['a temperature out of range', ['--temperature', '3'], '--temperature'],
    ['a temperature that is not a number', ['--temperature', 'warm'], '--temperature must be a number'],
    ['--summaries maybe', ['--summaries', 'maybe'], '--summaries takes on or off'],
    ['a provider in capitals', ['--provider', 'OpenAI'], '--provider: provider must be a lower-case name'],
    ['--key-env naming an unset variable', ['--key-env', 'NOT_SET_ANYWHERE'], 'NOT_SET_ANYWHERE is not set'],
    ['--key-env with --no-key', ['--key-env', 'HOME', '--no-key'], 'exclude each other'],
    ['a fractional daily limit', ['--tokens-per-day', '1.5'], '--tokens-per-day'],
    ['an unknown flag', ['--colour', 'blue'], "Unknown option '--colour'"],
    ['an agent key instead of the login', ['--api-key-env', 'HOME'], "needs the owner's login"],
  ])('refuses %s as a usage error (exit 2), sending nothing', async (_, flags, message) => {
    const before = await owner.agent.getLlmSettings();
    const res = await runCli([...FIRST, ...flags], owner.env);
    expect(res.code, res.output).toBe(2);
    expect(res.stderr).toContain(message);
    expect(res.stderr).toContain('Usage: agent-gateway settings set');
    expect((await owner.agent.getLlmSettings()).updatedAt).toBe(before.updatedAt);
  });

  it("shows the gateway's refusals with their status and code (exit 1)", async () => {
    const compatible = await runCli([...FIRST, '--provider', 'openai-compatible'], owner.env);
    expect(compatible.code, compatible.output).toBe(1);
    expect(compatible.stderr).toContain('400 invalid_llm_base_url');
    const internal = await runCli([...FIRST, '--provider', 'openai-compatible', '--llm-base-url', 'https://10.0.0.1/v1'], owner.env);
    expect(internal.code, internal.output).toBe(1);
    expect(internal.stderr).toContain('400 invalid_llm_base_url');
    const many = await runCli([...FIRST, '--max-tokens', '100001'], owner.env);
    expect(many.code, many.output).toBe(1);
    expect(many.stderr).toContain('400 validation_failed');
    // The production policy refuses the stand-in's loopback URL: --standin is for the local stack.
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    await writeFile(
      path.join(dir, 'stack.json'),
      JSON.stringify({ llm: { provider: 'openai-compatible', model: 'stand-in', baseUrl: 'http://127.0.0.1:9/v1', standIn: true } }),
    );
    const standin = await runCli(['settings', 'set', '--standin'], { ...owner.env, DEV_DIR: dir });
    expect(standin.code, standin.output).toBe(1);
    expect(standin.stderr).toContain('400 invalid_llm_base_url');
    // Not the owner: the agent of another wallet.
    const other = await cliAgent(testnet);
    cleanups.push(other.remove);
    const foreign = await runCli(['settings', 'show'], { ...other.env, AGENT_TOKEN_ID: owner.tokenId.toString() });
    expect(foreign.code, foreign.output).toBe(1);
    expect(foreign.stderr).toContain('403 not_owner');
  });

  it('--standin points the agent at the stand-in model of the dev stack file, on a worker with the loopback switch', async () => {
    const worker = await loopbackWorker(stack);
    cleanups.push(() => worker.dispose());
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    // The loopback worker signs in for its configured domain, not its port: the token is saved as login would.
    const who = await freshAgent(worker.deployment);
    const baseUrl = normalizeBaseUrl(worker.url);
    const tokenFile = path.join(dir, 'token.json');
    await saveToken(tokenFile, { token: who.token, chainId: stack.testnet.chainId, wallet: who.owner.address, baseUrl, expiresAt: null });
    const dev = {
      env: cliEnv({
        HOME: dir,
        AGENT_GATEWAY_URL: baseUrl,
        AGENT_GATEWAY_TOKEN_FILE: tokenFile,
        AGENT_COLLECTION: who.collection,
        AGENT_TOKEN_ID: who.tokenId.toString(),
      }),
    };
    const missing = await runCli(['settings', 'set', '--standin'], { ...dev.env, DEV_DIR: path.join(dir, 'no-stack') });
    expect(missing.code, missing.output).toBe(2);
    expect(missing.stderr).toContain('no running `npm run dev`');

    const llm = { provider: 'openai-compatible', model: 'stand-in', baseUrl: 'http://127.0.0.1:8791/v1', standIn: true };
    await writeFile(path.join(dir, 'stack.json'), JSON.stringify({ llm }));
    const set = await runCli(['settings', 'set', '--standin', '--json'], { ...dev.env, DEV_DIR: dir });
    expect(set.code, set.output).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      provider: 'openai-compatible',
      model: 'stand-in',
      baseUrl: llm.baseUrl,
      temperature: 0,
      maxTokens: 512,
      credential: 'none',
    });
    expect(set.stderr).toContain("the local stack's stand-in model at http://127.0.0.1:8791/v1 (dev only");
  }, 60_000);
});
