import { call, type JsonResponse } from './http';

/**
 * Miniflare (tests and `wrangler dev`) counts rate limits in fixed windows aligned to the epoch
 * (60 s here). Waits, when needed, until a burst of `budgetMs` fits in the current window, so it
 * cannot straddle two and the counts are exact.
 */
export async function earlyInWindow(budgetMs = 12_000): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - budgetMs) await new Promise((resolve) => setTimeout(resolve, 60_000 - into + 100));
}

/** `count` concurrent POST /auth/jwt/init for one wallet; their statuses. */
export async function initBurst(
  baseUrl: string,
  walletAddress: string,
  count: number,
  chainId = 80002,
  headers: Record<string, string> = {},
): Promise<JsonResponse[]> {
  return Promise.all(
    Array.from({ length: count }, () => call(baseUrl, '/auth/jwt/init', { method: 'POST', json: { walletAddress, chainId }, headers })),
  );
}
