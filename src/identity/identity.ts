import { z } from '@hono/zod-openapi';
import { getAddress, type Address } from 'viem';

const MAX_TOKEN_ID = 2n ** 256n;

/** True for 0x + 40 hex where a mixed-case spelling is a valid EIP-55 checksum. */
export function isWalletAddress(value: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return false;
  const hex = value.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return getAddress(value) === value;
}

/**
 * An EVM address: `0x` + 40 hex digits; a mixed-case spelling must be a valid EIP-55 checksum.
 * Parses to the checksummed form.
 */
export const AddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex digits')
  .refine(
    (value) => !/^0x[0-9a-fA-F]{40}$/.test(value) || isWalletAddress(value),
    'has a bad EIP-55 checksum (use all lower case or the checksummed form)',
  )
  .transform((value) => getAddress(value) as Address)
  .openapi({ example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });

/** A token id: decimal digits, no sign, no leading zeros, below 2^256. Parses to a bigint. */
export const TokenIdSchema = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/, 'must be a decimal integer without sign or leading zeros')
  .refine((value) => !/^\d+$/.test(value) || (value.length <= 78 && BigInt(value) < MAX_TOKEN_ID), 'must be below 2^256')
  .transform((value) => BigInt(value))
  .openapi({ example: '1' });

export interface AgentIdentity {
  chainId: number;
  /** EIP-55 checksummed. */
  collection: Address;
  tokenId: bigint;
}

/** The `{agentCollectionAddress}/{agentTokenId}` path parameters of every agent route. */
export const AgentParamsSchema = z.object({
  agentCollectionAddress: AddressSchema.openapi({
    param: { name: 'agentCollectionAddress', in: 'path' },
    description: 'Address of the agent NFT collection (0x + 40 hex; mixed case must be EIP-55)',
  }),
  agentTokenId: TokenIdSchema.openapi({
    param: { name: 'agentTokenId', in: 'path' },
    description: 'Token id of the agent in its collection (decimal, no leading zeros, < 2^256)',
  }),
});
