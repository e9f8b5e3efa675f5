/** The options of the client and of its calls (`createGatewayClient`, every method's last argument). */

/**
 * What `login()` signs with: a viem `LocalAccount` (`privateKeyToAccount`, `mnemonicToAccount`,
 * `toAccount`…) or anything with an address and an EIP-191 `signMessage` (personal_sign).
 */
export interface LoginAccount {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
}

export interface GatewayClientOptions {
  /** The deployment, e.g. `http://127.0.0.1:8788` (a trailing slash is ignored). */
  baseUrl: string;
  /** An access token from an earlier login. */
  token?: string;
  /**
   * An agent key (`agk_...`, from `createAgentKey`) sent instead of a token: a pipeline holds no
   * wallet. It is never replaced by a login, and a 401 with it is final (revoked, expired).
   */
  apiKey?: string;
  /**
   * Enables `login()`; with it, an agent-scoped call made without a token logs in first, and a
   * 401 answer to an agent-scoped call logs in again once and retries the call once (there is no
   * refresh endpoint).
   */
  login?: { account: LoginAccount; chainId: number };
  /** Replaces the global `fetch` (tests, instrumentation, other runtimes). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Deadline of one request including its body, ms (default 60,000; 0 for none). */
  timeoutMs?: number;
  /** Called with every new token the client obtains (`login()` and re-logins), e.g. to save it. */
  onToken?: (session: LoginSession) => void | Promise<void>;
}

/** What a login produced. */
export interface LoginSession {
  token: string;
  walletAddress: string;
  chainId: number;
  /** From the token's `exp` claim, ISO 8601; null when the token carries none. */
  expiresAt: string | null;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}
