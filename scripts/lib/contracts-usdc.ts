/**
 * USDC on the local chains: our UsdcStandIn's code placed at the address USDC has on the chain
 * each local chain mirrors (src/chains.ts), and dev accounts funded with it. Node-only, like
 * contracts.ts: scripts (npm run dev) and the test harness use it.
 */
import { type Address, createPublicClient, http, parseAbi } from 'viem';
import { type ChainId, USDC } from '../../src/chains';
import { compileContracts } from './contracts-compile';
import { ANVIL_ACCOUNTS, clientsFor, waitForSuccess } from './contracts';
import { codeAt, setCodeAt } from './contracts-delegation';
import type { Hex } from 'viem';

/** The calls of UsdcStandIn the scripts, the facilitator's tests and the harness make. */
export const usdcAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function version() view returns (string)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

/** What each dev account holds after funding: 1000 USDC (6 decimals). */
export const DEV_USDC_FUNDING = 1_000_000_000n;

function usdcAddress(chainId: number): Address {
  const token = USDC[chainId as ChainId];
  if (!token) throw new Error(`no USDC address known for chain ${chainId}`);
  return token.address;
}

/**
 * Places UsdcStandIn's runtime code at USDC's address for `chainId` (anvil_setCode, only when the
 * code there differs). Balances live in that address's storage, so a kept chain keeps them.
 */
export async function installUsdc(rpcUrl: string, chainId: number): Promise<Address> {
  const address = usdcAddress(chainId);
  const { UsdcStandIn } = await compileContracts();
  if ((await codeAt(rpcUrl, address)) !== UsdcStandIn.runtime) await setCodeAt(rpcUrl, address, UsdcStandIn.runtime);
  return address;
}

/** The USDC balance (6-decimal units) of `address` on the local chain. */
export async function usdcBalance(rpcUrl: string, chainId: number, address: Address): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({ address: usdcAddress(chainId), abi: usdcAbi, functionName: 'balanceOf', args: [address] });
}

/**
 * Tops every address up to `amount` units (mints the difference; one already holding as much is
 * left). The stand-in's `mint` is open, so any funded key sends the transactions: `minterKey` (the first dev account by default).
 */
export async function fundUsdc(
  rpcUrl: string,
  chainId: number,
  addresses: readonly Address[],
  amount: bigint,
  minterKey: Hex = ANVIL_ACCOUNTS[0].privateKey,
): Promise<void> {
  const token = usdcAddress(chainId);
  const { walletClient, publicClient } = await clientsFor(rpcUrl, minterKey);
  for (const to of addresses) {
    const held = await usdcBalance(rpcUrl, chainId, to);
    if (held >= amount) continue;
    const hash = await walletClient.writeContract({ address: token, abi: usdcAbi, functionName: 'mint', args: [to, amount - held] });
    await waitForSuccess(publicClient, hash, `USDC mint for ${to}`);
  }
}
