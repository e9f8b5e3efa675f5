/**
 * Bindings of one deployment, as declared in `wrangler.mainnet.toml` / `wrangler.testnet.toml`.
 * Everything arrives as a string (vars and secrets) and is parsed once by `config.ts`.
 */
export interface Env {
  // vars
  CHAIN_ID: string;
  /** The chain RPC; optional when RPC_URLS is set. */
  RPC_URL?: string;
  /** Optional: RPC endpoints, comma-separated, tried in order (viem fallback); replaces RPC_URL when set. */
  RPC_URLS?: string;
  /** Deadline of one call to one RPC endpoint, ms (default 4000). */
  RPC_TIMEOUT_MS?: string;
  SIWE_DOMAIN: string;
  SIWE_URI: string;
  JWT__LIVING_TIME?: string;
  NONCE_TTL_SECONDS?: string;
  MAX_BODY_BYTES?: string;
  TOKEN__MAX_TOKENS_PER_REQUEST?: string;
  /** Deadline of one tool-server operation (handshake, retries and pages included), ms. */
  MCP_TIMEOUT_MS?: string;
  /** At most this many model calls in one agent reply (default 10). */
  INFERENCE_LOOP__MAX_ITERATIONS?: string;
  /** Deadline of one model call of an agent reply, ms (default 60000). */
  LLM_TIMEOUT_MS?: string;
  MCP_CALL_CEILING_MS?: string;
  /** `1`: reply spans carry message text (prompts, answers, tool arguments and results); `0` (default): never. */
  TRACE_MESSAGE_TEXT?: string;
  /** Optional: origins (comma-separated `https://host[:port]`) besides the gateway's own whose browser pages may call the agents' MCP servers. */
  MCP_ALLOWED_ORIGINS?: string;
  /** Optional: the x402 facilitator that verifies and settles paid replies (`https://…`); unset: no paid replies. */
  X402_FACILITATOR_URL?: string;
  /** The bare name is a common mistake: it is ignored, with a warning. */
  MAX_TOKENS_PER_REQUEST?: string;
  /** Local only: `host:port` of the WebSocket-to-TCP bridge standing in for Neon's proxy. */
  DB_WS_PROXY?: string;
  /** Local-stack switches (docs/development.md), refused on a deployment: see `DevSwitches` in config.ts. */
  DEV_LOOPBACK_TARGETS?: string;
  DEV_RATE_LIMITS?: string;
  // secrets
  DATABASE_URL: string;
  JWT__HASH: string;
  /** Key encryption key of the vault: `v<version>:<base64 of 32 bytes>`. */
  VAULT_KEK: string;
  /** The previous KEK, only while `npm run vault:rotate` re-wraps secrets. */
  VAULT_KEK_PREVIOUS?: string;
  // bindings
  NONCES: KVNamespace;
  /** Workers Rate Limiting (`[[ratelimits]]`): see RATE_LIMITERS in src/http/rate-limit.ts. */
  LOGIN_RATE_LIMITER: RateLimit;
  AGENT_RATE_LIMITER: RateLimit;
  IP_RATE_LIMITER: RateLimit;
  /** The dashboard's static assets (`[assets] binding`; docs/dashboard.md), served at /app by src/dashboard-serving. */
  ASSETS?: Fetcher;
  /** Optional Workers AI binding (`[ai] binding = "AI"`) for the `workers-ai` LLM provider. */
  AI?: Ai;
}

/** Names of the secrets a deployment needs (`wrangler secret put <NAME>`). */
export const SECRET_NAMES = ['DATABASE_URL', 'JWT__HASH', 'VAULT_KEK', 'VAULT_KEK_PREVIOUS'] as const;
