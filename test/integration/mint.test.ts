/**
 * `npm run mint` against a real chain: the harness's anvil with a freshly deployed demo collection,
 * described by a stack.json in a DEV_DIR of our own (what `npm run dev` writes). Runs the script
 * as users do and checks the chain afterwards.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deployDemoAgents, demoAgentsAbi } from '../../scripts/lib/contracts';
import { deployRentableAgents } from '../../scripts/lib/contracts-delegation';
import { REPO_ROOT } from '../../scripts/lib/migrate';
import { freePort } from '../../scripts/lib/processes';
import { flipCaseOfFirstLetter, fundedWallet, newWallet } from '../support/chain';

const stack = inject('stack');
let devDir = '';
let collection: Address;
let rentableCollection: Address;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mint(args: string[], dir = devDir): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/mint.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DEV_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function ownerOf(tokenId: bigint, address = collection): Promise<string> {
  const client = createPublicClient({ transport: http(stack.testnet.rpcUrl) });
  return client.readContract({ address, abi: demoAgentsAbi, functionName: 'ownerOf', args: [tokenId] });
}

beforeAll(async () => {
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-mint-'));
  const minter = await fundedWallet(stack.testnet.rpcUrl);
  collection = await deployDemoAgents(stack.testnet.rpcUrl, minter.privateKey);
  rentableCollection = await deployRentableAgents(stack.testnet.rpcUrl, minter.privateKey);
  const file = {
    startedAt: new Date().toISOString(),
    databaseUrl: stack.databaseUrl,
    mainnet: stack.mainnet,
    testnet: { ...stack.testnet, collection, rentableCollection },
    // A wallet of its own signs: parallel test files never race on one sender's nonce.
    accounts: [{ address: minter.address, privateKey: minter.privateKey }],
  };
  await writeFile(path.join(devDir, 'stack.json'), JSON.stringify(file));
}, 60_000);

afterAll(async () => {
  if (devDir) await rm(devDir, { recursive: true, force: true });
});

describe('npm run mint', () => {
  it('mints the smallest free token id to --to and prints the export line for the CLI', async () => {
    const owner = newWallet().address;
    const first = await mint(['--to', owner]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`export AGENT_GATEWAY_URL=${stack.testnet.baseUrl} AGENT_COLLECTION=${collection} AGENT_TOKEN_ID=1`);
    expect(first.stderr).toContain(`minted agent 1 of collection ${collection} on testnet (chain 80002) to ${owner}`);
    expect(await ownerOf(1n)).toBe(owner);

    const second = await mint(['--to', owner.toLowerCase()]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('AGENT_TOKEN_ID=2');
    expect(await ownerOf(2n)).toBe(owner);

    const chosen = await mint(['--to', owner, '--token-id', '4242', '--chain', 'testnet']);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stdout).toContain('AGENT_TOKEN_ID=4242');
    expect(await ownerOf(4242n)).toBe(owner);

    const taken = await mint(['--to', newWallet().address, '--token-id', '1']);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toContain(`token 1 of ${collection} (testnet) is taken: ${owner} owns it`);
    expect(await ownerOf(1n)).toBe(owner);
  }, 60_000);

  it('--rentable mints on the rentable (ERC-4907) collection, and says so when the stack file names none', async () => {
    const owner = newWallet().address;
    const run = await mint(['--to', owner, '--rentable']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(
      `export AGENT_GATEWAY_URL=${stack.testnet.baseUrl} AGENT_COLLECTION=${rentableCollection} AGENT_TOKEN_ID=1`,
    );
    expect(run.stderr).toContain(`minted agent 1 of collection ${rentableCollection} on testnet (chain 80002) to ${owner}`);
    expect(await ownerOf(1n, rentableCollection)).toBe(owner);

    const old = await mkdtemp(path.join(tmpdir(), 'agent-gateway-mint-old-'));
    try {
      const { rentableCollection: _, ...testnet } = { ...stack.testnet, collection };
      await writeFile(
        path.join(old, 'stack.json'),
        JSON.stringify({ mainnet: stack.mainnet, testnet, accounts: [{ address: '0x0', privateKey: '0x0' }] }),
      );
      const refused = await mint(['--to', owner, '--rentable'], old);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('the stack file names no rentable collection on testnet');
      expect(refused.stderr).toContain('restart npm run dev');
    } finally {
      await rm(old, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a bad address, a bad token id and a bad chain with usage errors (exit 2)', async () => {
    const address = newWallet().address;
    const cases: [string[], string][] = [
      [['--to', '0x1234'], 'is not an address'],
      [['--to', address, '--token-id', '1.5'], 'is not a token id'],
      [['--to', address, '--chain', 'goerli'], 'use mainnet or testnet'],
      [[], '--to ADDRESS is required'],
    ];
    for (const [args, message] of cases) {
      const run = await mint(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    const mixed = await mint(['--to', flipCaseOfFirstLetter(address)]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('bad checksum');
  }, 60_000);

  it('says the stack is not running when there is no stack.json, or its chain does not answer, naming DEV_DIR', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'agent-gateway-mint-none-'));
    try {
      const missing = await mint(['--to', newWallet().address], empty);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        `the local stack is not running: no stack file (${path.join(empty, 'stack.json')}, from DEV_DIR=${empty}).`,
      );
      expect(missing.stderr).toContain(
        'Start it with npm run dev (with the same DEV_DIR), or set DEV_DIR to the directory of the stack that runs',
      );

      const deadPort = await freePort();
      const dead = { ...stack.testnet, rpcUrl: `http://127.0.0.1:${deadPort}`, collection };
      await writeFile(
        path.join(empty, 'stack.json'),
        JSON.stringify({ mainnet: stack.mainnet, testnet: dead, accounts: [{ address: '0x0', privateKey: '0x0' }] }),
      );
      const stale = await mint(['--to', newWallet().address], empty);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain('is not answering');
      expect(stale.stderr).toContain(`stack file ${path.join(empty, 'stack.json')}, from DEV_DIR=${empty}`);
      expect(stale.stderr).toContain('is npm run dev (with that DEV_DIR) still running?');
      expect(stale.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
