/**
 * delegate.xyz v2's `DelegateRegistry`: the part of its interface the gateway reads (delegations
 * to a wallet, and the checks) and the dev stack writes (delegate, revoke). The registry sits at the
 * same address on every chain that has it; a wallet says there "this hot wallet may act for my
 * tokens", for all of them (`ALL`), one collection (`CONTRACT`) or one token (`ERC721`), with full
 * rights (`rights` zero) or one named right.
 */
import { type Address, type Hex, stringToHex } from 'viem';

/** Where delegate.xyz v2 is deployed, on Polygon and every other chain that has it. */
export const DELEGATE_REGISTRY_ADDRESS: Address = '0x00000000000000447e69651d841bD8D104Bed493';

/** The gateway's own right, `bytes32("agent-gateway")` (right-padded ASCII): a delegation for this gateway only. */
export const AGENT_GATEWAY_RIGHT: Hex = stringToHex('agent-gateway', { size: 32 });

/** `DelegationType` in the registry: NONE, ALL, CONTRACT, ERC721, ERC20, ERC1155. */
export const DELEGATION_TYPE = { NONE: 0, ALL: 1, CONTRACT: 2, ERC721: 3, ERC20: 4, ERC1155: 5 } as const;

const delegation = {
  type: 'tuple',
  components: [
    { name: 'type_', type: 'uint8' },
    { name: 'to', type: 'address' },
    { name: 'from', type: 'address' },
    { name: 'rights', type: 'bytes32' },
    { name: 'contract_', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

export const delegateRegistryAbi = [
  {
    type: 'function',
    name: 'delegateAll',
    stateMutability: 'payable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'rights', type: 'bytes32' },
      { name: 'enable', type: 'bool' },
    ],
    outputs: [{ name: 'delegationHash', type: 'bytes32' }],
  },
  {
    type: 'function',
    name: 'delegateContract',
    stateMutability: 'payable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'contract_', type: 'address' },
      { name: 'rights', type: 'bytes32' },
      { name: 'enable', type: 'bool' },
    ],
    outputs: [{ name: 'delegationHash', type: 'bytes32' }],
  },
  {
    type: 'function',
    name: 'delegateERC721',
    stateMutability: 'payable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'contract_', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
      { name: 'rights', type: 'bytes32' },
      { name: 'enable', type: 'bool' },
    ],
    outputs: [{ name: 'delegationHash', type: 'bytes32' }],
  },
  {
    type: 'function',
    name: 'checkDelegateForAll',
    stateMutability: 'view',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'from', type: 'address' },
      { name: 'rights', type: 'bytes32' },
    ],
    outputs: [{ name: 'valid', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'checkDelegateForContract',
    stateMutability: 'view',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'from', type: 'address' },
      { name: 'contract_', type: 'address' },
      { name: 'rights', type: 'bytes32' },
    ],
    outputs: [{ name: 'valid', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'checkDelegateForERC721',
    stateMutability: 'view',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'from', type: 'address' },
      { name: 'contract_', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
      { name: 'rights', type: 'bytes32' },
    ],
    outputs: [{ name: 'valid', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'getIncomingDelegations',
    stateMutability: 'view',
    inputs: [{ name: 'to', type: 'address' }],
    outputs: [{ name: 'delegations', type: 'tuple[]', components: delegation.components }],
  },
  {
    type: 'function',
    name: 'getOutgoingDelegations',
    stateMutability: 'view',
    inputs: [{ name: 'from', type: 'address' }],
    outputs: [{ name: 'delegations', type: 'tuple[]', components: delegation.components }],
  },
] as const;

/** ERC-4907 (rentable NFTs): the interface id and the reads the gate makes. */
export const ERC4907_INTERFACE_ID: Hex = '0xad092b5c';

export const erc4907Abi = [
  {
    type: 'function',
    name: 'setUser',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'tokenId', type: 'uint256' },
      { name: 'user', type: 'address' },
      { name: 'expires', type: 'uint64' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'userOf',
    stateMutability: 'view',
    inputs: [{ name: 'tokenId', type: 'uint256' }],
    outputs: [{ name: '', type: 'address' }],
  },
  {
    type: 'function',
    name: 'userExpires',
    stateMutability: 'view',
    inputs: [{ name: 'tokenId', type: 'uint256' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
