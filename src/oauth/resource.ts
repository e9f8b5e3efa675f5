import { getAddress, type Address } from 'viem';
import { AddressSchema, TokenIdSchema } from '../identity/identity';

/** The agent an OAuth grant was made for, and the wallet that made it. */
export interface GrantSubject {
  wallet: Address;
  collection: Address;
  tokenId: bigint;
}

/**
 * The RFC 8707 resource of one agent: its MCP URL, `{origin}/agent/{c}/{t}/mcp`, with the
 * collection in EIP-55 form (one canonical spelling, so a token's audience compares exactly).
 */
export function mcpResource(origin: string, collection: Address, tokenId: bigint): string {
  return `${origin}/agent/${getAddress(collection)}/${tokenId}/mcp`;
}

/** Where that resource's RFC 9728 metadata lives: the well-known prefix before the resource's path. */
export function resourceMetadataUrl(origin: string, collection: Address, tokenId: bigint): string {
  return `${origin}/.well-known/oauth-protected-resource/agent/${getAddress(collection)}/${tokenId}/mcp`;
}

const MCP_PATH = /^\/agent\/([^/]+)\/([^/]+)\/mcp$/;

/**
 * The agent a `resource` parameter names, or null when it is not exactly the canonical MCP URL
 * of an agent on this origin (another origin, a query, a fragment, a lower-case address...).
 */
export function parseMcpResource(origin: string, resource: string): { collection: Address; tokenId: bigint } | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.search !== '' || url.hash !== '') return null;
  const match = MCP_PATH.exec(url.pathname);
  const collection = AddressSchema.safeParse(match?.[1]);
  const tokenId = TokenIdSchema.safeParse(match?.[2]);
  if (!collection.success || !tokenId.success) return null;
  if (mcpResource(origin, collection.data, tokenId.data) !== resource) return null;
  return { collection: collection.data, tokenId: tokenId.data };
}

/**
 * The library's `userId` of a grant: wallet, collection and token id joined by `.` (it may not
 * hold `:`, which separates the parts of its codes and tokens). Every code, access token and
 * refresh token starts with it, so the token endpoint knows which agent's resource a request is
 * about without trusting anything but the KV record the library then looks up under that prefix.
 */
export function grantUserId(subject: GrantSubject): string {
  return `${subject.wallet}.${subject.collection}.${subject.tokenId}`;
}

/** The subject a code or token claims by its prefix; null when it has no such prefix. */
export function subjectOfCredential(credential: string): GrantSubject | null {
  const userId = credential.split(':', 1)[0] ?? '';
  const [wallet, collection, tokenId, ...rest] = userId.split('.');
  if (rest.length > 0) return null;
  const w = AddressSchema.safeParse(wallet);
  const c = AddressSchema.safeParse(collection);
  const t = TokenIdSchema.safeParse(tokenId);
  if (!w.success || !c.success || !t.success) return null;
  return { wallet: w.data, collection: c.data, tokenId: t.data };
}

/**
 * The resource a request to an agent's MCP route is for: its URL with the collection in EIP-55
 * form (a token was issued for that spelling). Undefined for any other path, and for an MCP
 * path whose collection or token id does not parse: OAuth tokens are for the MCP route only.
 */
export function resourceOfMcpPath(origin: string, path: string): string | undefined {
  const match = MCP_PATH.exec(path);
  if (!match) return undefined;
  const collection = AddressSchema.safeParse(match[1]);
  const tokenId = TokenIdSchema.safeParse(match[2]);
  // A path naming no agent has no resource: a token there is refused as for any other route.
  if (!collection.success || !tokenId.success) return undefined;
  return mcpResource(origin, collection.data, tokenId.data);
}
