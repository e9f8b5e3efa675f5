/**
 * The ERC-721 reads the gateway makes, in one place: `ownerOf` (every agent-scoped request),
 * `balanceOf` and `tokenOfOwnerByIndex` (a wallet's own tokens, ERC-721 Enumerable),
 * `totalSupply` and `tokenByIndex` (Enumerable), `supportsInterface` (ERC-165). viem's `erc721Abi`
 * lacks `supportsInterface` and spells `tokenOfOwnerByIndex` as a second `tokenByIndex`, hence our
 * own fragments. The demo contracts' ABI (scripts/lib/contracts.ts) starts from these, and a test
 * checks them against the compiled contracts.
 */
export const erc721ReadAbi = [
  {
    type: 'function',
    name: 'ownerOf',
    stateMutability: 'view',
    inputs: [{ name: 'tokenId', type: 'uint256' }],
    outputs: [{ name: '', type: 'address' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'supportsInterface',
    stateMutability: 'view',
    inputs: [{ name: 'interfaceId', type: 'bytes4' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'totalSupply',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'tokenByIndex',
    stateMutability: 'view',
    inputs: [{ name: 'index', type: 'uint256' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'tokenOfOwnerByIndex',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'index', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
