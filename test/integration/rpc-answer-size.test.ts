/**
 * The gateway reads RPC answers up to RPC_MAX_RESPONSE_BYTES (src/chain/client.ts), whether the
 * answer declares its length or is chunked: an RPC endpoint that answers more is a failed
 * endpoint (503 with Retry-After), never memory spent without bound. A loopback JSON-RPC server of
 * our own plays the endpoint: the gate's one eth_call (the access lens) answers the caller as owner,
 * padded to the size asked.
 */
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { type Address, encodeAbiParameters, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { RPC_MAX_RESPONSE_BYTES } from '../../src/chain/client';
import { freshTokenId, newWallet, type TestAccount } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');

/** The access lens's answer (src/chain/agent-access.ts): the token exists, `wallet` owns it, no delegation, no rental. */
const ownerAnswer = (wallet: Address) =>
  encodeAbiParameters(
    [
      { type: 'bool' },
      { type: 'address' },
      { type: 'bool' },
      { type: 'bool' },
      { type: 'address' },
      { type: 'uint256' },
      { type: 'uint256' },
    ],
    [true, wallet, false, false, zeroAddress, 0n, 0n],
  );

let owner: TestAccount;
let token: string;
let server: Server;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
/** What the next eth_call answer looks like. */
let mode: { padding: number; chunked: boolean; gzip?: boolean } = { padding: 0, chunked: false };

beforeAll(async () => {
  owner = newWallet();
  token = await login(testnet, owner);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rpc = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string };
      const result = rpc.method === 'eth_call' ? ownerAnswer(owner.address) : '0x13882';
      // A valid JSON-RPC answer, made as large as asked with an extra member.
      const body = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result, padding: 'x'.repeat(mode.padding) });
      if (mode.gzip) {
        const zipped = gzipSync(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(zipped.length) });
        res.end(zipped);
      } else if (mode.chunked) {
        res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
        for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.slice(i, i + 64 * 1024));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
        res.end(body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), RPC_URL: `http://127.0.0.1:${address.port}` },
  });
});

afterAll(async () => {
  await worker?.dispose();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

const getAgent = () => call(worker.url, agentPath(testnet.collection, freshTokenId()), { token });

describe('RPC answers are read up to a bound', () => {
  it.each([
    ['with its length declared', false],
    ['chunked, length undeclared', true],
  ])('a small answer %s is read (the owner passes the gate)', async (_, chunked) => {
    mode = { padding: 100_000, chunked };
    const res = await getAgent();
    expect(res.status, res.text).toBe(200);
    expect(res.body.owner).toBe(owner.address);
  });

  it.each([
    ['with its length declared', false],
    ['chunked, length undeclared', true],
  ])('an answer over the bound %s is a failed endpoint: 503 dependency_unavailable', async (_, chunked) => {
    mode = { padding: RPC_MAX_RESPONSE_BYTES + 1, chunked };
    const res = await getAgent();
    expectError(res, 503, 'dependency_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
  });
});

describe('a compressed RPC answer is bounded by its decoded size (issue 18)', () => {
  it('a gzip answer of a few KB that decodes past the bound is a failed endpoint: 503', async () => {
    mode = { padding: 8 * RPC_MAX_RESPONSE_BYTES, chunked: false, gzip: true };
    expect(gzipSync('x'.repeat(8 * RPC_MAX_RESPONSE_BYTES)).length).toBeLessThan(64 * 1024);
    const res = await getAgent();
    expectError(res, 503, 'dependency_unavailable');
  });

  it('a small gzip answer is read (the owner passes the gate)', async () => {
    mode = { padding: 100_000, chunked: false, gzip: true };
    const res = await getAgent();
    expect(res.status, res.text).toBe(200);
    expect(res.body.owner).toBe(owner.address);
  });
});
