/**
 * `npm run bench:oauth [-- --requests N] [--write]`: what an OAuth access token costs on an
 * agent's MCP route next to the owner's JWT, against the running local stack (`npm run dev`).
 *
 * One agent minted to a fresh wallet, which logs in (JWT) and grants an OAuth client a token the
 * way the authorize page does (register, authorize, sign, approve, exchange with PKCE). Then
 * `--requests` (default 300) sequential requests per case after 30 warm-up, round-robin so drift
 * hits all alike:
 *   (a) GET /no-such-route → 404: routing and middleware, no I/O (the floor)
 *   (b) POST /agent/{c}/{t}/mcp `tools/list` with the owner's JWT → 200
 *   (c) the same with the OAuth access token → 200 (adds the token's KV read and props decryption)
 * Prints medians and p99 with (c) − (b); `--write` replaces the "## OAuth on the MCP route
 * (issue 25)" section of BENCHMARKS.md. Never asserts on figures; never prints a token or key.
 */
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import { type Address, getAddress } from 'viem';
import { mintAgent } from '../lib/contracts';
import {
  BenchError,
  booleanFlag,
  type DeploymentInfo,
  describeMachine,
  machineFacts,
  markdownTable,
  ms,
  numberFlag,
  parseFlags,
  readStack,
  rejectUnknownFlags,
  runBench,
  runDate,
  stackRun,
  summarize,
  writeBenchmarkSection,
} from './lib';
import { loggedInClient, newWallet, noIoRequest, type Step, timed } from './lib/client';

const SECTION = '## OAuth on the MCP route (issue 25)';
const WARM_UP = 30;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

const log = (message: string) => console.error(`bench:oauth: ${message}`);

async function post(url: string, init: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, { method: 'POST', headers, body });
  const answer = (await res.json().catch(() => ({}))) as Record<string, string>;
  if (!res.ok) throw new BenchError(`POST ${new URL(url).pathname}: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
  return answer;
}

/** The authorize page's flow without the page: register, open, sign the login message, approve, exchange. */
async function oauthToken(deployment: DeploymentInfo, wallet: ReturnType<typeof newWallet>, resource: string): Promise<string> {
  const base = deployment.baseUrl;
  const { client_id } = await post(`${base}/oauth/register`, {
    json: { redirect_uris: [REDIRECT_URI], client_name: 'bench', token_endpoint_auth_method: 'none' },
  });
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client_id ?? '',
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource,
  });
  const page = await fetch(`${base}/oauth/authorize?${query}`);
  const handle = /data-handle="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !handle) throw new BenchError(`authorize page: ${page.status}`);
  const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const login = await post(`${base}/auth/jwt/init`, { json: { walletAddress: wallet.address, chainId: deployment.chainId } });
  const signature = await wallet.signMessage({ message: login.message ?? '' });
  const approved = await post(`${base}/oauth/authorize`, {
    headers: { cookie },
    json: { handle, walletAddress: wallet.address, chainId: deployment.chainId, nonce: login.nonce, signature },
  });
  const code = new URL(approved.redirectTo ?? '').searchParams.get('code') ?? '';
  const tokens = await post(`${base}/oauth/token`, {
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: client_id ?? '',
      resource,
    },
  });
  return tokens.access_token ?? '';
}

function toolsList(url: string, credential: string): Promise<Step> {
  return timed(
    async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${credential}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      await res.arrayBuffer();
      return res.status;
    },
    (status) => (status === 200 ? undefined : `answered ${status}`),
  );
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['requests', 'write']);
  const requests = Math.round(numberFlag(flags, 'requests', 300));
  const write = booleanFlag(flags, 'write');
  const stack = await readStack();
  const deployment = stack.testnet;
  const facts = machineFacts();
  const load = os.loadavg()[0] ?? NaN;
  log(`stack: ${deployment.baseUrl}; ${describeMachine(facts)}; load average ${load.toFixed(2)}`);

  const wallet = newWallet();
  const collection = getAddress(deployment.collection) as Address;
  const tokenId = BigInt(Date.now()) * 1000n + 7n;
  await mintAgent(deployment.rpcUrl, stack.accounts[0]?.privateKey as `0x${string}`, collection, wallet.address, tokenId);
  const resource = `${new URL(deployment.baseUrl).origin}/agent/${collection}/${tokenId}/mcp`;
  const jwt = (await loggedInClient(deployment, wallet)).token ?? '';
  const oauth = await oauthToken(deployment, wallet, resource);

  const cases = [
    { key: 'a', label: '(a) GET /no-such-route → 404 (floor)', run: () => noIoRequest(deployment.baseUrl) },
    { key: 'b', label: '(b) MCP tools/list, owner JWT', run: () => toolsList(resource, jwt) },
    { key: 'c', label: '(c) MCP tools/list, OAuth access token', run: () => toolsList(resource, oauth) },
  ] as const;
  const samples: Record<string, number[]> = { a: [], b: [], c: [] };
  const failures: Record<string, number> = { a: 0, b: 0, c: 0 };
  log(`${WARM_UP} warm-up + ${requests} sequential requests per case, round-robin...`);
  for (let i = 0; i < WARM_UP + requests; i++) {
    for (const c of cases) {
      const step = await c.run();
      if (step.failure) failures[c.key] = (failures[c.key] ?? 0) + 1;
      else if (i >= WARM_UP) samples[c.key]?.push(step.ms);
    }
  }
  const s = Object.fromEntries(cases.map((c) => [c.key, summarize(samples[c.key] ?? [])]));
  const table = markdownTable(
    ['case', 'n', 'median', 'p99', 'failures'],
    cases.map((c) => [c.label, String(s[c.key]?.n), ms(s[c.key]?.median ?? NaN), ms(s[c.key]?.p99 ?? NaN), String(failures[c.key])]),
    ['left', 'right', 'right', 'right', 'right'],
  );
  const extra = (s.c?.median ?? NaN) - (s.b?.median ?? NaN);
  const text = `An OAuth access token costs ${ms(extra)} at the median over the owner's JWT on the same call (${((s.c?.median ?? NaN) / (s.b?.median ?? NaN)).toFixed(2)}×), both above a floor of ${ms(s.a?.median ?? NaN)}: its KV read and the decryption of its grant's props; ownerOf runs for both.`;
  console.log(`\n${table}\n\n${text}\n`);
  if (write) {
    const body = [
      `Command: \`npm run bench:oauth -- ${requests !== 300 ? `--requests ${requests} ` : ''}--write\` (against \`${stackRun().command}\`), run ${runDate(new Date())}.`,
      `Machine: ${facts.cores} cores (${facts.model}), Node ${facts.node}, ${facts.os}; load average ${load.toFixed(2)} when the run started (other work shares these cores).`,
      '',
      table,
      '',
      text,
    ].join('\n');
    log(`wrote "${SECTION}" in ${await writeBenchmarkSection(SECTION, body)}`);
  }
  return Object.values(failures).some((n) => n > 0) ? 1 : 0;
}

runBench('bench:oauth', main);
