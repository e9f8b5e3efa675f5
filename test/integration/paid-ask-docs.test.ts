/**
 * docs/paid-calls.md's TypeScript under "Pay for a reply" runs as a reader copies it, against a
 * test worker (real workerd, Postgres, the local chain's USDC stand-in and the local x402
 * facilitator): `agent-gateway/client` is this repository's client source (a package of that name
 * around it), the rest comes from node_modules, and the reader's values come from the environment
 * variables the snippet names. It prints the agent's reply and the transaction, and exactly the
 * price moved from the payer to the owner.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { REPO_ROOT } from '../support/docs';
import { closePg } from '../support/pg';
import { replyWorker } from '../support/replies';
import { fundedPayer, pricedAgent, usdcBalance } from '../support/x402';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const CHAIN = stack.testnet.chainId;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

/** The TypeScript block of the guide's section, as a reader copies it. */
async function guideSnippet(): Promise<string> {
  const guide = await readFile(path.join(REPO_ROOT, 'docs/paid-calls.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Pay for a reply'));
  const match = /```ts\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 1)));
  if (!match?.[1]) throw new Error('no ts block in the guide section');
  return match[1];
}

/**
 * A directory where `import … from 'agent-gateway/client'` resolves to this repository's client
 * source (the directory is a package of that name exporting it) and every other import to the
 * repository's node_modules.
 */
async function readerDirectory(code: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'paid-guide-'));
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  await symlink(path.join(REPO_ROOT, 'src/client'), path.join(dir, 'client'));
  const pkg = { name: 'agent-gateway', private: true, type: 'module', exports: { './client': './client/index.ts' } };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(pkg));
  await writeFile(path.join(dir, 'pay.mts'), code);
  return dir;
}

describe('the guide: Pay for a reply', () => {
  it('runs as written: pays the price to the owner and prints the reply and the transaction', async () => {
    const agent = await pricedAgent(worker.deployment, API_KEY);
    const payer = await fundedPayer(stack.testnet);
    const code = await guideSnippet();
    expect(code).toContain("from 'agent-gateway/client'");
    const dir = await readerDirectory(code);
    let printed = '';
    try {
      const node = path.join(REPO_ROOT, 'node_modules/.bin/node');
      const { stdout } = await promisify(execFile)(node, ['--import', 'tsx', 'pay.mts'], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          PAYER_PRIVATE_KEY: payer.privateKey,
          AGENT_GATEWAY_URL: worker.url,
          AGENT_COLLECTION: agent.collection,
          AGENT_TOKEN_ID: String(agent.tokenId),
        },
        timeout: 60_000,
      });
      printed = stdout.trim();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // The reply (the stand-in's answer to the guide's question), then the transaction the audit trail names.
    expect(printed.startsWith(STANDIN_PREFIX), printed).toBe(true);
    expect(printed).toContain('What do you know about warranty claims?');
    const transaction = /(0x[0-9a-f]{64})$/.exec(printed)?.[1];
    expect(transaction, printed).toBeDefined();
    const audit = await agent.call('/audit');
    const settled = audit.body.entries.filter((e: { action: string }) => e.action === 'payment.settled');
    expect(settled.map((e: { target: { transaction: string } }) => e.target.transaction)).toEqual([transaction]);
    expect(await usdcBalance(stack.testnet.rpcUrl, CHAIN, payer.address)).toBe(990_000n);
    expect(await usdcBalance(stack.testnet.rpcUrl, CHAIN, agent.owner.address)).toBe(10_000n);
    const messages = await agent.call(`/context/${encodeURIComponent(`paid/${payer.address.toLowerCase()}`)}/messages`);
    expect(messages.status, messages.text).toBe(200);
    expect(messages.text).toContain('What do you know about warranty claims?');
  });
});
