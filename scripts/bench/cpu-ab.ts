/**
 * `node --import tsx scripts/bench/cpu-ab.ts [--requests N] [--clients C] [--rounds R] name=bundle.js[@date[+flag,flag]] ...`:
 * the gated read and the no-I/O answer of several worker bundles (or one bundle under several
 * compatibility settings) side by side, against one running `DEV_WRANGLER=0 npm run dev` (its
 * Postgres, bridge and anvil; DEV_DIR as usual). Each variant runs in a workerd of its own
 * (Miniflare, the testnet wrangler file's vars and bindings, rate limits off); rounds alternate
 * the variants so the load of a shared machine falls on each alike. Per variant: req/s of both
 * kinds at `--clients`, their ratio, and the worker's CPU ms per request (/proc, its workerd
 * only). Without `@date`, the wrangler file's compatibility date and flags.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createGatewayClient } from '../../src/client';
import { mintAgent } from '../lib/contracts';
import { readWranglerConfig } from '../lib/worker-bundle';
import { BenchError, numberFlag, parseFlags, readStack, REPO_ROOT, runBench, runCount } from './lib';
import { clockTicks } from './proc-cpu';

function workerdTicks(pid: number): number {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}

function workerdPidOf(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes('workerd') && cmd.includes(`entry=127.0.0.1:${port}\0`)) return Number(entry);
    } catch {
      /* gone */
    }
  }
  throw new BenchError(`no workerd on port ${port}`);
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const specs = argv.filter((a) => !a.startsWith('--') && a.includes('='));
  const flags = parseFlags(argv.filter((a) => !specs.includes(a)));
  const requests = Math.round(numberFlag(flags, 'requests', 1000));
  const clients = Math.round(numberFlag(flags, 'clients', 16));
  const rounds = Math.round(numberFlag(flags, 'rounds', 3));
  const stack = await readStack();
  const devDir = path.resolve(REPO_ROOT, process.env.DEV_DIR ?? '.dev');
  const secret = (name: string) => readFileSync(path.join(devDir, name), 'utf8').trim();
  const config = readWranglerConfig('testnet');
  const bridge = `127.0.0.1:${process.env.DEV_BRIDGE_PORT ?? '5434'}`;
  const variants: { name: string; url: string; pid: number; mf: Miniflare }[] = [];
  let port = 26000;
  for (const spec of specs) {
    const [name, rest] = spec.split('=') as [string, string];
    const [file, compat] = rest.split('@') as [string, string | undefined];
    const [date, flagList] = compat ? (compat.split('+') as [string, string | undefined]) : [config.compatibility_date, undefined];
    const compatFlags = compat ? (flagList ? flagList.split(',') : []) : (config.compatibility_flags ?? []);
    const p = port++;
    const origin = `http://127.0.0.1:${p}`;
    const mf = new Miniflare({
      host: '127.0.0.1',
      port: p,
      workers: [
        {
          name: config.name,
          modules: true,
          scriptPath: path.resolve(file),
          modulesRoot: path.dirname(path.resolve(file)),
          compatibilityDate: date,
          compatibilityFlags: compatFlags,
          kvNamespaces: config.kv_namespaces.map((kv) => kv.binding),
          ratelimits: Object.fromEntries(
            (config.ratelimits ?? []).map((r) => [r.name, { namespace_id: r.namespace_id, simple: r.simple }]),
          ),
          bindings: {
            ...config.vars,
            CHAIN_ID: String(stack.testnet.chainId),
            RPC_URL: stack.testnet.rpcUrl,
            SIWE_DOMAIN: new URL(origin).host,
            SIWE_URI: origin,
            DB_WS_PROXY: bridge,
            DATABASE_URL: stack.databaseUrl,
            JWT__HASH: secret('jwt-secret'),
            VAULT_KEK: secret('vault-kek'),
            DEV_LOOPBACK_TARGETS: '1',
            DEV_RATE_LIMITS: '0',
          },
        },
      ],
    });
    const url = (await mf.ready).toString().replace(/\/$/, '');
    variants.push({ name: `${name} (${date}${compatFlags.length ? ` ${compatFlags.join(',')}` : ''})`, url, pid: workerdPidOf(p), mf });
  }
  try {
    const owner = privateKeyToAccount(generatePrivateKey());
    const funder = stack.accounts[1] ?? stack.accounts[0]!;
    const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
    await mintAgent(stack.testnet.rpcUrl, funder.privateKey, stack.testnet.collection, owner.address, tokenId);
    const first = variants[0]!;
    const client = createGatewayClient({ baseUrl: first.url, login: { account: owner, chainId: stack.testnet.chainId } });
    await client.login();
    await client.agent(stack.testnet.collection, tokenId).createContext('ab/read');
    const agents = variants.map((v) => {
      const c = createGatewayClient({ baseUrl: v.url, login: { account: owner, chainId: stack.testnet.chainId } });
      return { v, c, agent: c.agent(stack.testnet.collection, tokenId) };
    });
    for (const a of agents) {
      await a.c.login();
      for (let i = 0; i < 20; i++) await a.agent.listContextKeys();
    }
    const totals = new Map<string, { noIo: [number, number, number]; read: [number, number, number] }>();
    for (let r = 0; r < rounds; r++) {
      for (const a of agents) {
        const measure = async (run: () => Promise<void>): Promise<[number, number, number]> => {
          const t0 = workerdTicks(a.v.pid);
          const { elapsedMs } = await runCount(requests, clients, run);
          return [requests, elapsedMs, workerdTicks(a.v.pid) - t0];
        };
        const noIo = await measure(async () => {
          const res = await fetch(`${a.v.url}/no-such-route`);
          await res.arrayBuffer();
        });
        const read = await measure(async () => void (await a.agent.listContextKeys()));
        const t = totals.get(a.v.name) ?? { noIo: [0, 0, 0], read: [0, 0, 0] };
        for (let k = 0; k < 3; k++) {
          t.noIo[k]! += noIo[k]!;
          t.read[k]! += read[k]!;
        }
        totals.set(a.v.name, t);
        const rate = (x: [number, number, number]) => (x[0] * 1000) / x[1];
        console.error(
          `round ${r + 1} ${a.v.name}: no-I/O ${rate(noIo).toFixed(0)}/s, gated ${rate(read).toFixed(0)}/s, ratio ${(rate(read) / rate(noIo)).toFixed(3)}`,
        );
      }
    }
    const msPerTick = 1000 / clockTicks();
    console.log(`| variant | no-I/O req/s | gated read req/s | ratio | worker CPU ms, no-I/O | worker CPU ms, gated read |`);
    console.log('|---|--:|--:|--:|--:|--:|');
    for (const [name, t] of totals) {
      const rate = (x: [number, number, number]) => (x[0] * 1000) / x[1];
      console.log(
        `| ${name} | ${rate(t.noIo).toFixed(0)} | ${rate(t.read).toFixed(0)} | ${(rate(t.read) / rate(t.noIo)).toFixed(2)} | ${((t.noIo[2] * msPerTick) / t.noIo[0]).toFixed(2)} | ${((t.read[2] * msPerTick) / t.read[0]).toFixed(2)} |`,
      );
    }
  } finally {
    await Promise.all(variants.map((v) => v.mf.dispose()));
  }
  return 0;
}

runBench('bench:cpu-ab', main);
