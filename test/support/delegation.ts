/**
 * Delegations and rentals on the harness's chains, for the tests of who may use an agent besides
 * its owner: delegate.xyz v2 calls on the registry stand-in (at the registry's canonical address on
 * both chains), ERC-4907 rentals on the rentable demo collection, the chain's clock, and faults (a
 * collection that lies, a registry that reverts or is gone) on a fork of a chain, so the chain
 * every other test file shares never sees them.
 *
 * Every write here is signed by the account given; the account is topped up with gas first.
 */
import { type Address, createPublicClient, type Hex, http, type PublicClient, zeroHash } from 'viem';
import { startAnvil } from '../../scripts/lib/anvil';
import { registerCollection } from '../../scripts/lib/collections';
import { clientsFor, waitForSuccess } from '../../scripts/lib/contracts';
import {
  codeAt,
  deployLyingRentableAgents,
  deployRentableAgents,
  rentableAgentsAbi,
  setCodeAt,
  setUser,
} from '../../scripts/lib/contracts-delegation';
import { freePort } from '../../scripts/lib/processes';
import { DELEGATE_REGISTRY_ADDRESS, delegateRegistryAbi } from '../../src/chain/delegate-registry-abi';
import { fundedWallet, mintFreshAgent, type TestAccount } from './chain';
import type { DeploymentInfo, StackInfo } from './stack-info';

export { AGENT_GATEWAY_RIGHT, DELEGATE_REGISTRY_ADDRESS, DELEGATION_TYPE } from '../../src/chain/delegate-registry-abi';

/** Both deployments as the harness describes them (each with `delegateRegistry` and `rentableCollection`). */
export function deployments(stack: StackInfo): { mainnet: DeploymentInfo; testnet: DeploymentInfo } {
  return { mainnet: stack.mainnet, testnet: stack.testnet };
}

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

function reader(chain: DeploymentInfo): PublicClient {
  return createPublicClient({ transport: http(chain.rpcUrl) });
}

async function withGas(chain: DeploymentInfo, account: TestAccount): Promise<void> {
  await rpc(chain.rpcUrl, 'anvil_setBalance', [account.address, '0x56BC75E2D63100000']); // 100 ETH
}

type Target = { kind: 'all' } | { kind: 'contract'; contract: Address } | { kind: 'erc721'; contract: Address; tokenId: bigint };

async function delegate(
  chain: DeploymentInfo,
  from: TestAccount,
  to: Address,
  target: Target,
  rights: Hex,
  enable: boolean,
): Promise<void> {
  await withGas(chain, from);
  const { walletClient, publicClient } = await clientsFor(chain.rpcUrl, from.privateKey);
  const address = DELEGATE_REGISTRY_ADDRESS;
  const abi = delegateRegistryAbi;
  const hash =
    target.kind === 'all'
      ? await walletClient.writeContract({ address, abi, functionName: 'delegateAll', args: [to, rights, enable] })
      : target.kind === 'contract'
        ? await walletClient.writeContract({ address, abi, functionName: 'delegateContract', args: [to, target.contract, rights, enable] })
        : await walletClient.writeContract({
            address,
            abi,
            functionName: 'delegateERC721',
            args: [to, target.contract, target.tokenId, rights, enable],
          });
  await waitForSuccess(publicClient, hash, `${enable ? 'delegate' : 'revoke'} ${target.kind} to ${to}`);
}

/** `from` lets `to` act for all its tokens; `rights` zero (the default) is a full delegation. */
export function delegateAll(chain: DeploymentInfo, from: TestAccount, to: Address, rights: Hex = zeroHash): Promise<void> {
  return delegate(chain, from, to, { kind: 'all' }, rights, true);
}

/** `from` lets `to` act for its tokens of `contract`. */
export function delegateContract(
  chain: DeploymentInfo,
  from: TestAccount,
  to: Address,
  contract: Address,
  rights: Hex = zeroHash,
): Promise<void> {
  return delegate(chain, from, to, { kind: 'contract', contract }, rights, true);
}

/** `from` lets `to` act for one token. */
export function delegateERC721(
  chain: DeploymentInfo,
  from: TestAccount,
  to: Address,
  contract: Address,
  tokenId: bigint,
  rights: Hex = zeroHash,
): Promise<void> {
  return delegate(chain, from, to, { kind: 'erc721', contract, tokenId }, rights, true);
}

/** Revokes what delegateAll made (the same `rights`). */
export function revokeAll(chain: DeploymentInfo, from: TestAccount, to: Address, rights: Hex = zeroHash): Promise<void> {
  return delegate(chain, from, to, { kind: 'all' }, rights, false);
}

/** Revokes what delegateContract made (the same contract and `rights`). */
export function revokeContract(
  chain: DeploymentInfo,
  from: TestAccount,
  to: Address,
  contract: Address,
  rights: Hex = zeroHash,
): Promise<void> {
  return delegate(chain, from, to, { kind: 'contract', contract }, rights, false);
}

/** Revokes what delegateERC721 made (the same token and `rights`). */
export function revokeERC721(
  chain: DeploymentInfo,
  from: TestAccount,
  to: Address,
  contract: Address,
  tokenId: bigint,
  rights: Hex = zeroHash,
): Promise<void> {
  return delegate(chain, from, to, { kind: 'erc721', contract, tokenId }, rights, false);
}

/** The registry's own answer to `checkDelegateForERC721(to, from, contract, tokenId, rights)`. */
export function checkDelegateForERC721(
  chain: DeploymentInfo,
  to: Address,
  from: Address,
  contract: Address,
  tokenId: bigint,
  rights: Hex = zeroHash,
): Promise<boolean> {
  return reader(chain).readContract({
    address: DELEGATE_REGISTRY_ADDRESS,
    abi: delegateRegistryAbi,
    functionName: 'checkDelegateForERC721',
    args: [to, from, contract, tokenId, rights],
  });
}

/** The delegations that hold now to `to` (getIncomingDelegations). */
export function incomingDelegations(chain: DeploymentInfo, to: Address) {
  return reader(chain).readContract({
    address: DELEGATE_REGISTRY_ADDRESS,
    abi: delegateRegistryAbi,
    functionName: 'getIncomingDelegations',
    args: [to],
  });
}

/** Mints a fresh token of the rentable collection (or `collection`) to `owner`; returns its id. */
export function mintRentable(chain: DeploymentInfo, owner: Address, collection = chain.rentableCollection): Promise<bigint> {
  return mintFreshAgent(chain, owner, collection);
}

/**
 * ERC-4907 `setUser`: `owner` (the token's owner or an approved wallet) lends the token to `user`
 * while the chain's time is at most `expires` (seconds; see chainTime). The zero address ends it.
 */
export async function rent(
  chain: DeploymentInfo,
  owner: TestAccount,
  collection: Address,
  tokenId: bigint,
  user: Address,
  expires: bigint,
): Promise<void> {
  await withGas(chain, owner);
  await setUser(chain.rpcUrl, owner.privateKey, collection, tokenId, user, expires);
}

/** `userOf` and `userExpires` of a rentable token, as the chain answers now. */
export async function rental(chain: DeploymentInfo, collection: Address, tokenId: bigint): Promise<{ user: Address; expires: bigint }> {
  const client = reader(chain);
  const call = { address: collection, abi: rentableAgentsAbi, args: [tokenId] } as const;
  const [user, expires] = await Promise.all([
    client.readContract({ ...call, functionName: 'userOf' }),
    client.readContract({ ...call, functionName: 'userExpires' }),
  ]);
  return { user, expires };
}

/** The chain's time: the latest block's timestamp (what a rental is measured against). */
export async function chainTime(chain: DeploymentInfo): Promise<bigint> {
  return (await reader(chain).getBlock({ blockTag: 'latest' })).timestamp;
}

/**
 * Moves the chain's clock forward by `seconds` and mines a block (evm_increaseTime, evm_mine).
 * Every test file on that chain sees the jump: rentals that must outlive it need expiries far
 * beyond it (a day), or move time on a fork (forkChain) instead.
 */
export async function advanceChainTime(chain: DeploymentInfo, seconds: number): Promise<bigint> {
  await rpc(chain.rpcUrl, 'evm_increaseTime', [seconds]);
  await rpc(chain.rpcUrl, 'evm_mine', []);
  return chainTime(chain);
}

/** A fresh RentableAgents of the test's own, registered (kind `internal`) on the chain's deployment. */
export async function deployRentableCollection(chain: DeploymentInfo, databaseUrl: string): Promise<Address> {
  const deployer = await fundedWallet(chain.rpcUrl);
  const address = await deployRentableAgents(chain.rpcUrl, deployer.privateKey);
  await registerCollection(databaseUrl, { chainId: chain.chainId, address, kind: 'internal' });
  return address;
}

/**
 * A collection that lies: `supportsInterface(0xad092b5c)` (ERC-4907) is true, `userOf` and
 * `userExpires` revert. Registered (kind `internal`); `mintRentable(chain, owner, lying)` mints on it.
 */
export async function deployLyingCollection(chain: DeploymentInfo, databaseUrl: string): Promise<Address> {
  const deployer = await fundedWallet(chain.rpcUrl);
  const address = await deployLyingRentableAgents(chain.rpcUrl, deployer.privateKey);
  await registerCollection(databaseUrl, { chainId: chain.chainId, address, kind: 'internal' });
  return address;
}

/** A private copy of a chain (anvil --fork-url): the same contracts, registered collections and tokens. */
export interface ForkedChain extends DeploymentInfo {
  stop(): Promise<void>;
}

/**
 * Forks `chain` as it is now, same chain id: a worker pointed at the fork's `rpcUrl` (RPC_URL)
 * sees the same registry, collections and tokens. Mint, delegate, rent and break things there;
 * the shared chain is left alone. Stop it in afterAll.
 */
export async function forkChain(chain: DeploymentInfo): Promise<ForkedChain> {
  const anvil = await startAnvil({ chainId: chain.chainId, port: await freePort(), forkUrl: chain.rpcUrl });
  return { ...chain, rpcUrl: anvil.rpcUrl, stop: anvil.stop };
}

/** Runtime code that reverts whatever it is asked (PUSH1 0, PUSH1 0, REVERT). */
const ALWAYS_REVERTS: Hex = '0x60006000fd';

/**
 * Breaks the delegate registry on `chain` until the returned function restores it: `revert`
 * answers every call with a revert, `absent` leaves no code at the address (a chain without the
 * registry). Its delegations (the address's storage) survive and hold again once restored.
 * Use it on a fork (forkChain): on the shared chain every test file's delegates would fail meanwhile.
 */
export async function breakRegistry(chain: DeploymentInfo, how: 'revert' | 'absent'): Promise<() => Promise<void>> {
  const code = await codeAt(chain.rpcUrl, DELEGATE_REGISTRY_ADDRESS);
  if (code === '0x') throw new Error(`no registry at ${DELEGATE_REGISTRY_ADDRESS} on ${chain.rpcUrl} to break`);
  await setCodeAt(chain.rpcUrl, DELEGATE_REGISTRY_ADDRESS, how === 'revert' ? ALWAYS_REVERTS : '0x');
  return () => setCodeAt(chain.rpcUrl, DELEGATE_REGISTRY_ADDRESS, code);
}
