/**
 * The local stack's x402 facilitator: verifies and settles `exact` payments (EIP-3009 USDC
 * transfers) on the local chains, answering the calls @x402/core's HTTPFacilitatorClient makes
 * (GET /supported, POST /verify, POST /settle). A node:http server on loopback; the key it pays
 * gas with is a dev account no test uses as payer or owner. Logs nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { Hex } from 'viem';
import { clientsFor } from './contracts';

/** anvil's tenth well-known account: funded with gas on every local chain, used by nothing else. */
export const FACILITATOR_ACCOUNT = {
  address: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  privateKey: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
} as const satisfies { address: `0x${string}`; privateKey: Hex };

const BODY_LIMIT = 64 * 1024;

export interface RunningFacilitator {
  url: string;
  stop(): Promise<void>;
}

export async function startFacilitator(options: {
  chains: readonly { chainId: number; rpcUrl: string }[];
  privateKey?: Hex;
  port?: number;
}): Promise<RunningFacilitator> {
  const facilitator = new x402Facilitator();
  for (const { chainId, rpcUrl } of options.chains) {
    const { account, publicClient, walletClient } = await clientsFor(rpcUrl, options.privateKey ?? FACILITATOR_ACCOUNT.privateKey);
    const signer = toFacilitatorEvmSigner({
      address: account.address,
      readContract: (args) => publicClient.readContract(args as Parameters<typeof publicClient.readContract>[0]),
      verifyTypedData: (args) => publicClient.verifyTypedData(args as Parameters<typeof publicClient.verifyTypedData>[0]),
      writeContract: (args) => walletClient.writeContract(args as Parameters<typeof walletClient.writeContract>[0]),
      sendTransaction: (args) => walletClient.sendTransaction(args),
      waitForTransactionReceipt: (args) => publicClient.waitForTransactionReceipt({ ...args, pollingInterval: 50 }),
      getCode: (args) => publicClient.getCode(args),
    });
    facilitator.register(`eip155:${chainId}`, new ExactEvmScheme(signer));
  }

  // One key per chain: settlements on a chain run one after another (no nonce races).
  const queues = new Map<string, Promise<unknown>>();
  const serialized = <T>(network: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(network) ?? Promise.resolve();
    const next = previous.then(work, work);
    queues.set(
      network,
      next.catch(() => undefined),
    );
    return next;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { error: 'internal_error' }));
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/supported') return send(res, 200, facilitator.getSupported());
    if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle')) return send(res, 404, { error: 'not_found' });
    const body = await readBody(req);
    if (body === 'too_large') return send(res, 413, { error: 'body_too_large' });
    const parsed = parseRequest(body);
    if (!parsed) return send(res, 400, { error: 'invalid_request' });
    const { scheme, network } = parsed.paymentRequirements;
    if (!facilitator.getSupported().kinds.some((k) => k.scheme === scheme && k.network === network)) {
      return send(res, 400, { error: 'unsupported_scheme_or_network' });
    }
    if (path === '/verify') return send(res, 200, await facilitator.verify(parsed.paymentPayload, parsed.paymentRequirements));
    const result = await serialized(parsed.paymentRequirements.network, () =>
      facilitator.settle(parsed.paymentPayload, parsed.paymentRequirements),
    );
    return send(res, 200, result);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

async function readBody(req: IncomingMessage): Promise<string | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) return 'too_large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `{ x402Version, paymentPayload, paymentRequirements }` with the parts the library reads present. */
function parseRequest(text: string): { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isObject(value.paymentPayload) || !isObject(value.paymentRequirements)) return undefined;
  const payload = value.paymentPayload;
  const requirements = value.paymentRequirements;
  if (typeof payload.x402Version !== 'number' || !isObject(payload.payload)) return undefined;
  if (typeof requirements.scheme !== 'string' || typeof requirements.network !== 'string') return undefined;
  return { paymentPayload: payload as unknown as PaymentPayload, paymentRequirements: requirements as unknown as PaymentRequirements };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
