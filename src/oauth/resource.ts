import { getAddress, type Address } from 'viem';
import { AddressSchema, TokenIdSchema } from '../identity/identity';

/** The agent an OAuth grant was made for, and the wallet that made it. */
export interface GrantSubject {
  wallet: Address;
  collection: Address;
  tokenId: bigint;
}

/** The two doors of an agent that take OAuth access tokens: its MCP server and its A2A endpoint. */
export type AgentSurface = 'mcp' | 'a2a';

/**
 * The RFC 8707 resource of one door of an agent: `{origin}/agent/{c}/{t}/mcp` or `.../a2a`, with
 * the collection in EIP-55 form (one canonical spelling, so a token's audience compares exactly).
 * A token is bound to one of them: an MCP token is refused on the A2A URL, and the other way round.
 */
export function agentResource(origin: string, collection: Address, tokenId: bigint, surface: AgentSurface): string {
  return `${origin}/agent/${getAddress(collection)}/${tokenId}/${surface}`;
}

/** The agent's MCP URL as a resource. */
export function mcpResource(origin: string, collection: Address, tokenId: bigint): string {
  return agentResource(origin, collection, tokenId, 'mcp');
}

/** Both resources of one agent, the MCP URL first (the one a grant without a resource meant). */
export function agentResources(origin: string, collection: Address, tokenId: bigint): [string, string] {
  return [agentResource(origin, collection, tokenId, 'mcp'), agentResource(origin, collection, tokenId, 'a2a')];
}

/** Where a resource's RFC 9728 metadata lives: the well-known prefix before the resource's path. */
export function resourceMetadataUrl(origin: string, resource: string): string {
  return resource.replace(origin, `${origin}/.well-known/oauth-protected-resource`);
}

const AGENT_DOOR_PATH = /^\/agent\/([^/]+)\/([^/]+)\/(mcp|a2a)$/;

/**
 * The agent and door a `resource` parameter names, or null when it is not exactly the canonical
 * MCP or A2A URL of an agent on this origin (another origin, a query, a fragment, a lower-case
 * address...).
 */
export function parseAgentResource(
  origin: string,
  resource: string,
): { collection: Address; tokenId: bigint; surface: AgentSurface } | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.search !== '' || url.hash !== '') return null;
  const match = AGENT_DOOR_PATH.exec(url.pathname);
  const collection = AddressSchema.safeParse(match?.[1]);
  const tokenId = TokenIdSchema.safeParse(match?.[2]);
  const surface = match?.[3] === 'a2a' ? 'a2a' : 'mcp';
  if (!collection.success || !tokenId.success) return null;
  if (agentResource(origin, collection.data, tokenId.data, surface) !== resource) return null;
  return { collection: collection.data, tokenId: tokenId.data, surface };
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
 * The resource a request to an agent's MCP or A2A route is for: its URL with the collection in
 * EIP-55 form (a token was issued for that spelling). Undefined for any other path, and for a
 * path whose collection or token id does not parse: OAuth tokens are for those two routes only.
 */
export function resourceOfAgentPath(origin: string, path: string): string | undefined {
  const match = AGENT_DOOR_PATH.exec(path);
  if (!match) return undefined;
  const collection = AddressSchema.safeParse(match[1]);
  const tokenId = TokenIdSchema.safeParse(match[2]);
  // A path naming no agent has no resource: a token there is refused as for any other route.
  if (!collection.success || !tokenId.success) return undefined;
  return agentResource(origin, collection.data, tokenId.data, match[3] === 'a2a' ? 'a2a' : 'mcp');
}

/** As `resourceOfAgentPath`, for the MCP route only. */
export function resourceOfMcpPath(origin: string, path: string): string | undefined {
  const resource = resourceOfAgentPath(origin, path);
  return resource?.endsWith('/mcp') ? resource : undefined;
}
