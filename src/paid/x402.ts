/**
 * x402 for paid replies: the terms of one reply as `@x402/hono`'s payment middleware wants them
 * (the price as data: scheme `exact`, the chain's USDC with its EIP-712 domain, the current owner as
 * `payTo`), on a resource server per isolate that knows the facilitator (`X402_FACILITATOR_URL`)
 * and the `exact` EVM scheme. The protocol itself (402 with PAYMENT-REQUIRED, verify, settle,
 * PAYMENT-RESPONSE) is the packages'; this file only chooses.
 */
import { HTTPFacilitatorClient, type RouteConfig, x402HTTPResourceServer, x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddlewareFromHTTPServer } from '@x402/hono';
import type { MiddlewareHandler } from 'hono';
import { type ChainId, USDC } from '../chains';
import { AppError } from '../errors';

/** How long a payer's signed authorization may take to be settled, seconds (the reply's ceiling and a margin). */
export const PAYMENT_TIMEOUT_SECONDS = 300;
/** One facilitator call's deadline. */
const FACILITATOR_TIMEOUT_MS = 10_000;

/** The CAIP-2 network name x402 uses for a chain. */
export const networkOf = (chainId: number) => `eip155:${chainId}` as const;

/** Resource servers that fetched their facilitator's supported kinds, per facilitator and chain (per isolate). */
const servers = new Map<string, Promise<x402ResourceServer>>();

/**
 * The resource server for `chainId` on `facilitatorUrl`, initialized once per isolate (the
 * facilitator's `/supported`, asked again after a failure).
 * @throws AppError 503 `facilitator_unavailable` when the facilitator cannot be reached or does not settle `exact` on this chain.
 */
export async function resourceServer(facilitatorUrl: string, chainId: number): Promise<x402ResourceServer> {
  const key = `${facilitatorUrl} ${chainId}`;
  let server = servers.get(key);
  if (!server) {
    server = (async () => {
      const built = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS }));
      built.register(networkOf(chainId), new ExactEvmScheme());
      await built.initialize();
      if (!built.getSupportedKind(2, networkOf(chainId), 'exact')) {
        throw new Error(`the facilitator does not settle the exact scheme on ${networkOf(chainId)}`);
      }
      return built;
    })();
    servers.set(key, server);
    server.catch(() => servers.delete(key));
  }
  try {
    return await server;
  } catch (err) {
    throw facilitatorUnavailable(err);
  }
}

export function facilitatorUnavailable(err: unknown): AppError {
  return new AppError('facilitator_unavailable', 'The payment facilitator cannot be reached or refused the request: try again later', {
    headers: { 'Retry-After': '30' },
    cause: err,
  });
}

/** What one paid reply costs and whom it pays. */
export interface PaidTerms {
  chainId: ChainId;
  /** The agent's current on-chain owner. */
  payTo: string;
  /** The price in USDC units. */
  units: number;
  /** The route's URL (the resource the payment is for). */
  resource: string;
  description: string;
  /** The body of a 402 without a payment (the gateway's error shape). */
  unpaidBody: () => unknown;
  /** The body of a 402 whose payment could not be settled after the reply. */
  settleFailedBody: (reason: string | undefined) => unknown;
}

/** The route's payment terms, as x402's route configuration: one way to pay, exact USDC to the owner. */
export function paidRouteConfig(terms: PaidTerms): RouteConfig {
  const usdc = USDC[terms.chainId];
  return {
    accepts: {
      scheme: 'exact',
      network: networkOf(terms.chainId),
      payTo: terms.payTo,
      price: { asset: usdc.address, amount: String(terms.units), extra: { name: usdc.name, version: usdc.version } },
      maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
    },
    resource: terms.resource,
    description: terms.description,
    mimeType: 'application/json',
    unpaidResponseBody: () => ({ contentType: 'application/json', body: terms.unpaidBody() }),
    settlementFailedResponseBody: (_context, result) => ({
      contentType: 'application/json',
      body: terms.settleFailedBody(result.errorReason),
    }),
  };
}

/**
 * `@x402/hono`'s payment middleware for one request's terms: no payment → 402; a payment the
 * facilitator verifies → the handler (`next`), then settlement when it answered under 400, and
 * PAYMENT-RESPONSE; an answer of 400 or more is not settled.
 */
export function paymentFor(server: x402ResourceServer, terms: PaidTerms): MiddlewareHandler {
  // The resource server is initialized already (resourceServer): nothing to sync per request.
  return paymentMiddlewareFromHTTPServer(new x402HTTPResourceServer(server, paidRouteConfig(terms)), undefined, undefined, false);
}
