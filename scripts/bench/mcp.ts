/**
 * `npm run bench:mcp [-- --rounds N] [--write]`: what the agent's MCP server (POST
 * /agent/{c}/{t}/mcp) adds to a tool call against calling the same tool server
 * directly, in one run on one machine, against the running local stack (`DEV_WRANGLER=0
 * DEV_RATE_LIMITS=0 npm run dev`; loopback targets on, the default).
 *
 * It starts the example tool server (examples/tool-server) on a free loopback port, mints an
 * agent, registers the tool server (its key in the vault) and makes an agent key with the scope
 * `mcp`, then runs `--rounds` (50) rounds after 5 warm-up rounds, each in order:
 * - `tools/call word_count` through the gateway's MCP route, with the agent key (stateless: one
 *   POST, no initialize);
 * - the same JSON-RPC `tools/call` on the tool server directly (one POST): the floor;
 * - `tools/list` through the gateway (the gate and the tools snapshot, no tool server);
 * - the same call on the REST route (POST …/mcp/connection/{id}/tools/call, the owner's token);
 * - `GET /agent/{c}/{t}` with the same key: the gate alone (bearer, the key's row, ownerOf);
 * - the stack's no-I/O request (`GET /no-such-route`: routing and middleware only): a second floor.
 * Prints medians and p99s beside the floors and the goal (tools/call through the gateway ≤ direct
 * + 10 ms); never asserts on them. `--write` replaces the section of BENCHMARKS.md.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Address } from 'viem';
import { agentMcpUrl } from '../../src/client/mcp-url';
import { mintAgent } from '../lib/contracts';
import { waitForExit } from '../lib/processes';
import {
  BenchError,
  booleanFlag,
  describeMachine,
  markdownTable,
  ms,
  now,
  numberFlag,
  parseFlags,
  ratio,
  readStack,
  rejectUnknownFlags,
  runBench,
  runDate,
  stackRun,
  summarize,
} from './lib';
import { writeBenchmarkSection } from './lib';
import { loggedInClient, newWallet, noIoRequest, rpc, stackLatency } from './lib/client';
import { startToolServer } from '../lib/tool-server';
import { toolRpc } from './reply/direct';

const WARM_UP = 5;
const HEADING = '## The agent as an MCP server (issue 25)';
const TEXT = 'one two three four five';

const log = (line: string) => console.error(`bench:mcp: ${line}`);

/** One JSON-RPC POST to the agent's MCP route; ms, and the result (a JSON-RPC error or isError throws). */
async function viaGateway(url: string, key: string, method: string, params: unknown): Promise<{ ms: number; result: unknown }> {
  const t0 = now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean }; error?: unknown };
  const elapsed = now() - t0;
  if (res.status !== 200 || body.result === undefined || body.result.isError) {
    throw new BenchError(`the gateway answered ${res.status} to ${method}: ${JSON.stringify(body).slice(0, 200)}`);
  }
  return { ms: elapsed, result: body.result };
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['rounds', 'write']);
  const rounds = numberFlag(flags, 'rounds', 50);
  const stack = await readStack();
  const { testnet } = stack;
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? Number.NaN;
  log(`stack: testnet ${testnet.baseUrl}; ${describeMachine()}; load ${loadAtStart.toFixed(2)}`);

  const toolKey = randomUUID();
  const tools = await startToolServer(toolKey);
  try {
    const owner = newWallet();
    const minter = newWallet();
    await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']);
    const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
    await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, owner.address as Address, tokenId);
    const agent = (await loggedInClient(testnet, owner)).agent(testnet.collection, tokenId);
    const connection = await agent.addMcpConnection({ url: tools.url, auth: { type: 'header', headerName: 'x-api-key', value: toolKey } });
    const { key } = await agent.createAgentKey({ name: 'bench:mcp', scopes: ['mcp'] });
    const url = agentMcpUrl(testnet.baseUrl, testnet.collection, tokenId);
    const call = { name: 'word_count', arguments: { text: TEXT } };

    const s = {
      gCall: [] as number[],
      dCall: [] as number[],
      gList: [] as number[],
      noIo: [] as number[],
      rest: [] as number[],
      gate: [] as number[],
    };
    let unexpected = 0;
    for (let i = 0; i < WARM_UP + rounds; i++) {
      const g = await viaGateway(url, key, 'tools/call', call);
      const d = await toolRpc(tools.url, toolKey, 'tools/call', call);
      const l = await viaGateway(url, key, 'tools/list', {});
      const n = await noIoRequest(testnet.baseUrl);
      const k0 = now();
      const gated = await fetch(`${testnet.baseUrl}/agent/${testnet.collection}/${tokenId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await gated.arrayBuffer();
      const k = now() - k0;
      if (gated.status !== 200) throw new BenchError(`GET /agent/{c}/{t} with the key answered ${gated.status}`);
      const r0 = now();
      await agent.callMcpTool(connection.id, call);
      const r = now() - r0;
      if (JSON.stringify((g.result as { content?: unknown }).content) !== JSON.stringify((d.result as { content?: unknown }).content)) {
        unexpected++;
      }
      if (n.failure) throw new BenchError(`the no-I/O request failed: ${n.failure}`);
      if (i < WARM_UP) continue;
      s.gCall.push(g.ms);
      s.dCall.push(d.ms);
      s.gList.push(l.ms);
      s.noIo.push(n.ms);
      s.rest.push(r);
      s.gate.push(k);
    }

    const m = (xs: number[]) => summarize(xs);
    const [gc, dc, gl, nio, rest, gate] = [m(s.gCall), m(s.dCall), m(s.gList), m(s.noIo), m(s.rest), m(s.gate)];
    const goal = gc.median <= dc.median + 10 ? 'met' : 'missed';
    const latency = stackLatency(stack);
    const table = markdownTable(
      ['measure', 'median', 'p99', 'ratio to direct', 'added to direct', 'goal'],
      [
        [
          'tools/call word_count through POST …/mcp (agent key)',
          ms(gc.median),
          ms(gc.p99),
          ratio(gc.median, dc.median),
          ms(gc.median - dc.median),
          `≤ ${ms(dc.median + 10)}: ${goal}`,
        ],
        ['the same tools/call on the tool server directly (floor)', ms(dc.median), ms(dc.p99), '1.00×', '', ''],
        [
          "the same call on the REST route …/mcp/connection/{id}/tools/call (owner's token)",
          ms(rest.median),
          ms(rest.p99),
          ratio(rest.median, dc.median),
          ms(rest.median - dc.median),
          '',
        ],
        ['tools/list through POST …/mcp (no tool server)', ms(gl.median), ms(gl.p99), '', '', ''],
        ['GET /agent/{c}/{t} with the same key (the gate alone: bearer, key, ownerOf)', ms(gate.median), ms(gate.p99), '', '', ''],
        ['GET /no-such-route (routing and middleware only: floor)', ms(nio.median), ms(nio.p99), '', '', ''],
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    );
    const run = stackRun();
    const network =
      latency.rpcMs > 0 || latency.dbMs > 0
        ? ` The stack's latency switches were on (RPC ${latency.rpcMs} ms, DB ${latency.dbMs} ms).`
        : '';
    const body = `Run ${runDate(startedAt)} against \`${run.command}\` (workers in ${run.runner}), ${describeMachine()}, load ${loadAtStart.toFixed(2)} → ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)}; \`npm run bench:mcp -- --rounds ${rounds}\`: ${rounds} rounds after ${WARM_UP} warm-up rounds, one client, the rows of a round one after the other.${network}

"Through the gateway" is one JSON-RPC POST to the agent's MCP route with an agent key (scope \`mcp\`),
stateless (no initialize): bearer, key and owner check (ownerOf on the chain), the tools snapshot
read, the SDK's server and transport, the owner's tool-server credential opened from the vault, the
call on the tool server (its kept session); the audit entry is written after the answer. "Directly" is the same \`tools/call\`
POSTed to the example tool server from the benchmark's process.

${table}
${unexpected > 0 ? `\n**${unexpected} rounds where the gateway's result differed from the direct one** (treat with care).\n` : ''}`;
    console.log(`\n${HEADING}\n\n${body}`);
    if (booleanFlag(flags, 'write')) log(`wrote ${await writeBenchmarkSection(HEADING, body)}`);
    return unexpected > 0 ? 1 : 0;
  } finally {
    tools.child.kill('SIGTERM');
    if (tools.child.pid !== undefined) await waitForExit(tools.child.pid, 5_000);
  }
}

runBench('bench:mcp', main);
