/**
 * The local chains' delegation parts, against the harness's anvils: our stand-in for delegate.xyz
 * v2's registry answers as v2 documents for each kind of delegation, rights and revocation, and
 * lists what holds; the rentable demo collection (ERC-4907) lends a token until a time; the
 * fault-test parts (a lying collection, a broken registry on a fork) do what they say.
 */
import {
  type AbiFunction,
  type Address,
  createPublicClient,
  type AbiParameter,
  type Hex,
  http,
  toFunctionSignature,
  stringToHex,
  zeroAddress,
  zeroHash,
} from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { listCollections } from '../../scripts/lib/collections';
import { clientsFor, compileContracts, waitForSuccess } from '../../scripts/lib/contracts';
import { codeAt, installDelegateRegistry, rentableAgentsAbi, setCodeAt } from '../../scripts/lib/contracts-delegation';
import { ERC4907_INTERFACE_ID, delegateRegistryAbi, erc4907Abi } from '../../src/chain/delegate-registry-abi';
import { freshTokenId, fundedWallet, newWallet, transferFreshAgent } from '../support/chain';
import {
  AGENT_GATEWAY_RIGHT,
  advanceChainTime,
  breakRegistry,
  chainTime,
  checkDelegateForERC721,
  DELEGATE_REGISTRY_ADDRESS,
  DELEGATION_TYPE,
  delegateAll,
  delegateContract,
  delegateERC721,
  deployLyingCollection,
  deployments,
  type ForkedChain,
  forkChain,
  incomingDelegations,
  mintRentable,
  rent,
  rental,
  revokeAll,
  revokeERC721,
} from '../support/delegation';
import type { DeploymentInfo } from '../support/stack-info';

const stack = inject('stack');
const { mainnet, testnet } = deployments(stack);
const OTHER_RIGHT = stringToHex('some-other-app', { size: 32 });
const anyContract = () => newWallet().address;

function read(chain: DeploymentInfo) {
  return createPublicClient({ transport: http(chain.rpcUrl) });
}

function checkAll(chain: DeploymentInfo, to: Address, from: Address, rights: Hex = zeroHash) {
  const args = [to, from, rights] as const;
  return read(chain).readContract({
    address: DELEGATE_REGISTRY_ADDRESS,
    abi: delegateRegistryAbi,
    functionName: 'checkDelegateForAll',
    args,
  });
}

function checkContract(chain: DeploymentInfo, to: Address, from: Address, contract: Address, rights: Hex = zeroHash) {
  const args = [to, from, contract, rights] as const;
  return read(chain).readContract({
    address: DELEGATE_REGISTRY_ADDRESS,
    abi: delegateRegistryAbi,
    functionName: 'checkDelegateForContract',
    args,
  });
}

let fork: ForkedChain | undefined;
afterAll(async () => {
  await fork?.stop();
});

describe('the local chains', () => {
  it('hold our registry stand-in at delegate.xyz v2 address and a registered rentable collection, on both deployments', async () => {
    const { DelegateRegistryStandIn } = await compileContracts();
    const registered = await listCollections(stack.databaseUrl);
    for (const chain of [mainnet, testnet]) {
      expect(chain.delegateRegistry).toBe(DELEGATE_REGISTRY_ADDRESS);
      expect(await codeAt(chain.rpcUrl, DELEGATE_REGISTRY_ADDRESS)).toBe(DelegateRegistryStandIn.runtime);
      const rentable = chain.rentableCollection as Address;
      const supports = (id: `0x${string}`) =>
        read(chain).readContract({ address: rentable, abi: rentableAgentsAbi, functionName: 'supportsInterface', args: [id] });
      expect(await supports(ERC4907_INTERFACE_ID)).toBe(true);
      expect(await supports('0x780e9d63')).toBe(true); // ERC-721 Enumerable, as the demo collection
      expect(registered).toContainEqual({ chainId: chain.chainId, address: rentable, kind: 'internal' });
      expect(rentable).not.toBe(chain.collection);
    }
  });
});

/** An ABI parameter's type, tuples spelled out: `(uint8,address,...)[]`. */
function typeOf(p: AbiParameter): string {
  if (!p.type.startsWith('tuple')) return p.type;
  const components = 'components' in p ? p.components : [];
  return `(${components.map(typeOf).join(',')})${p.type.slice('tuple'.length)}`;
}

/** `mutability name(types) returns (types)` of each function of an ABI (pure read as view: the same to a caller). */
function functionShapes(abi: readonly { type: string }[]): string[] {
  return abi
    .filter((item): item is AbiFunction => item.type === 'function')
    .map(
      (f) =>
        `${f.stateMutability === 'pure' ? 'view' : f.stateMutability} ${toFunctionSignature(f)} returns (${f.outputs.map(typeOf).join(',')})`,
    )
    .sort();
}

describe('the interfaces', () => {
  it('the stand-in offers every call of the registry ABI the gateway uses, as declared; the rentable collection ERC-4907', async () => {
    const compiled = await compileContracts();
    const standIn = functionShapes(compiled.DelegateRegistryStandIn.abi);
    for (const shape of functionShapes(delegateRegistryAbi)) expect(standIn).toContain(shape);
    const rentable = functionShapes(compiled.RentableAgents.abi);
    for (const shape of functionShapes(rentableAgentsAbi)) expect(rentable).toContain(shape);
    const lying = functionShapes(compiled.LyingRentableAgents.abi);
    for (const shape of functionShapes(erc4907Abi).filter((f) => !f.includes('setUser'))) {
      expect(lying).toContain(shape);
    }
  });
});

describe('the registry stand-in (delegate.xyz v2 semantics)', () => {
  it('a wallet-wide full delegation satisfies every check for any rights, in one direction only', async () => {
    const cold = await fundedWallet(mainnet.rpcUrl);
    const hot = newWallet().address;
    const contract = anyContract();
    expect(await checkAll(mainnet, hot, cold.address)).toBe(false);
    await delegateAll(mainnet, cold, hot);
    expect(await checkAll(mainnet, hot, cold.address)).toBe(true);
    expect(await checkAll(mainnet, hot, cold.address, AGENT_GATEWAY_RIGHT)).toBe(true);
    expect(await checkContract(mainnet, hot, cold.address, contract, OTHER_RIGHT)).toBe(true);
    expect(await checkDelegateForERC721(mainnet, hot, cold.address, contract, 7n)).toBe(true);
    expect(await checkDelegateForERC721(mainnet, hot, cold.address, contract, 7n, AGENT_GATEWAY_RIGHT)).toBe(true);
    expect(await checkDelegateForERC721(mainnet, cold.address, hot, contract, 7n)).toBe(false); // not the other way
    expect(await checkDelegateForERC721(mainnet, newWallet().address, cold.address, contract, 7n)).toBe(false);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, contract, 7n)).toBe(false); // per chain
  });

  it('a collection-wide delegation covers that collection only; a token delegation that token only', async () => {
    const cold = await fundedWallet(testnet.rpcUrl);
    const hot = newWallet().address;
    const collection = testnet.collection as Address;
    const other = anyContract();
    await delegateContract(testnet, cold, hot, collection);
    expect(await checkAll(testnet, hot, cold.address)).toBe(false);
    expect(await checkContract(testnet, hot, cold.address, collection)).toBe(true);
    expect(await checkContract(testnet, hot, cold.address, other)).toBe(false);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, collection, 1n)).toBe(true);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, other, 1n)).toBe(false);

    const hot2 = newWallet().address;
    await delegateERC721(testnet, cold, hot2, collection, 42n);
    expect(await checkDelegateForERC721(testnet, hot2, cold.address, collection, 42n)).toBe(true);
    expect(await checkDelegateForERC721(testnet, hot2, cold.address, collection, 43n)).toBe(false);
    expect(await checkDelegateForERC721(testnet, hot2, cold.address, other, 42n)).toBe(false);
    expect(await checkContract(testnet, hot2, cold.address, collection)).toBe(false);
    expect(await checkAll(testnet, hot2, cold.address)).toBe(false);
  });

  it('a delegation for a named right satisfies a check for that right only, never a full check', async () => {
    const cold = await fundedWallet(testnet.rpcUrl);
    const hot = newWallet().address;
    const collection = testnet.collection as Address;
    await delegateERC721(testnet, cold, hot, collection, 5n, AGENT_GATEWAY_RIGHT);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, collection, 5n, AGENT_GATEWAY_RIGHT)).toBe(true);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, collection, 5n)).toBe(false);
    expect(await checkDelegateForERC721(testnet, hot, cold.address, collection, 5n, OTHER_RIGHT)).toBe(false);

    const hot2 = newWallet().address;
    await delegateAll(testnet, cold, hot2, OTHER_RIGHT);
    expect(await checkDelegateForERC721(testnet, hot2, cold.address, collection, 5n, OTHER_RIGHT)).toBe(true);
    expect(await checkDelegateForERC721(testnet, hot2, cold.address, collection, 5n, AGENT_GATEWAY_RIGHT)).toBe(false);
    expect(await checkAll(testnet, hot2, cold.address)).toBe(false);
  });

  it('lists what holds to a wallet; a revoked delegation leaves the list and the checks, and may be made again', async () => {
    const cold = await fundedWallet(mainnet.rpcUrl);
    const hot = newWallet().address;
    const collection = mainnet.collection as Address;
    await delegateAll(mainnet, cold, hot);
    await delegateERC721(mainnet, cold, hot, collection, 9n, AGENT_GATEWAY_RIGHT);
    expect(await incomingDelegations(mainnet, hot)).toEqual([
      { type_: DELEGATION_TYPE.ALL, to: hot, from: cold.address, rights: zeroHash, contract_: zeroAddress, tokenId: 0n, amount: 0n },
      {
        type_: DELEGATION_TYPE.ERC721,
        to: hot,
        from: cold.address,
        rights: AGENT_GATEWAY_RIGHT,
        contract_: collection,
        tokenId: 9n,
        amount: 0n,
      },
    ]);
    const outgoing = await read(mainnet).readContract({
      address: DELEGATE_REGISTRY_ADDRESS,
      abi: delegateRegistryAbi,
      functionName: 'getOutgoingDelegations',
      args: [cold.address],
    });
    expect(outgoing.map((d) => d.type_)).toEqual([DELEGATION_TYPE.ALL, DELEGATION_TYPE.ERC721]);

    await revokeAll(mainnet, cold, hot);
    expect(await checkAll(mainnet, hot, cold.address)).toBe(false);
    expect(await checkDelegateForERC721(mainnet, hot, cold.address, collection, 9n)).toBe(false);
    expect(await checkDelegateForERC721(mainnet, hot, cold.address, collection, 9n, AGENT_GATEWAY_RIGHT)).toBe(true);
    expect((await incomingDelegations(mainnet, hot)).map((d) => d.type_)).toEqual([DELEGATION_TYPE.ERC721]);

    await revokeERC721(mainnet, cold, hot, collection, 9n, AGENT_GATEWAY_RIGHT);
    expect(await incomingDelegations(mainnet, hot)).toEqual([]);
    expect(await checkDelegateForERC721(mainnet, hot, cold.address, collection, 9n, AGENT_GATEWAY_RIGHT)).toBe(false);
    await revokeERC721(mainnet, cold, hot, collection, 10n); // revoking what never was changes nothing
    expect(await incomingDelegations(mainnet, hot)).toEqual([]);

    await delegateAll(mainnet, cold, hot);
    expect(await checkAll(mainnet, hot, cold.address)).toBe(true);
    expect(await incomingDelegations(mainnet, hot)).toHaveLength(1);
  });
});

describe('the rentable collection (ERC-4907)', () => {
  it('lends a token to a user until a time, set by the owner or an approved wallet, never by another', async () => {
    const owner = await fundedWallet(testnet.rpcUrl);
    const collection = testnet.rentableCollection as Address;
    const tokenId = await mintRentable(testnet, owner.address);
    expect(await rental(testnet, collection, tokenId)).toEqual({ user: zeroAddress, expires: 0n });
    const renter = newWallet().address;
    const expires = (await chainTime(testnet)) + 86_400n;
    await rent(testnet, owner, collection, tokenId, renter, expires);
    expect(await rental(testnet, collection, tokenId)).toEqual({ user: renter, expires });

    const stranger = await fundedWallet(testnet.rpcUrl);
    await expect(rent(testnet, stranger, collection, tokenId, stranger.address, expires)).rejects.toThrow();
    expect((await rental(testnet, collection, tokenId)).user).toBe(renter);

    const approved = await fundedWallet(testnet.rpcUrl);
    const { walletClient, publicClient } = await clientsFor(testnet.rpcUrl, owner.privateKey);
    const approve = { address: collection, abi: rentableAgentsAbi, functionName: 'approve', args: [approved.address, tokenId] } as const;
    await waitForSuccess(publicClient, await walletClient.writeContract(approve), 'approve');
    await rent(testnet, approved, collection, tokenId, approved.address, expires);
    expect((await rental(testnet, collection, tokenId)).user).toBe(approved.address);
  });

  it('a transfer ends the rental', async () => {
    const owner = await fundedWallet(mainnet.rpcUrl);
    const chain = { ...mainnet, collection: mainnet.rentableCollection };
    const collection = chain.collection as Address;
    const tokenId = await mintRentable(chain, owner.address);
    await rent(chain, owner, collection, tokenId, newWallet().address, (await chainTime(chain)) + 86_400n);
    await transferFreshAgent(chain, owner, newWallet().address, tokenId);
    expect(await rental(chain, collection, tokenId)).toEqual({ user: zeroAddress, expires: 0n });
  });

  it('answers no user once the chain time passes the expiry (on a fork: the shared clock stays)', async () => {
    fork = await forkChain(testnet);
    const owner = await fundedWallet(fork.rpcUrl);
    const collection = fork.rentableCollection as Address;
    const tokenId = await mintRentable(fork, owner.address);
    const renter = newWallet().address;
    const expires = (await chainTime(fork)) + 3_600n;
    await rent(fork, owner, collection, tokenId, renter, expires);
    expect((await rental(fork, collection, tokenId)).user).toBe(renter);
    const sharedBefore = await chainTime(testnet);

    const near = await advanceChainTime(fork, 3_000);
    expect(near).toBeLessThanOrEqual(expires);
    expect((await rental(fork, collection, tokenId)).user).toBe(renter);
    const after = await advanceChainTime(fork, 1_200);
    expect(after).toBeGreaterThan(expires);
    expect(await rental(fork, collection, tokenId)).toEqual({ user: zeroAddress, expires });
    expect(await chainTime(testnet)).toBeLessThan(sharedBefore + 1_000n);
  }, 60_000);
});

describe('fault-test parts', () => {
  it('the lying collection claims ERC-4907 and reverts userOf; a registered collection of the deployment', async () => {
    const lying = await deployLyingCollection(testnet, stack.databaseUrl);
    const owner = newWallet().address;
    const tokenId = await mintRentable(testnet, owner, lying);
    const client = read(testnet);
    const call = { address: lying, abi: rentableAgentsAbi } as const;
    expect(await client.readContract({ ...call, functionName: 'ownerOf', args: [tokenId] })).toBe(owner);
    expect(await client.readContract({ ...call, functionName: 'supportsInterface', args: [ERC4907_INTERFACE_ID] })).toBe(true);
    await expect(client.readContract({ ...call, functionName: 'userOf', args: [tokenId] })).rejects.toThrow(/NotRentable/);
    await expect(client.readContract({ ...call, functionName: 'userExpires', args: [tokenId] })).rejects.toThrow(/NotRentable/);
    expect(await listCollections(stack.databaseUrl, testnet.chainId)).toContainEqual({
      chainId: testnet.chainId,
      address: lying,
      kind: 'internal',
    });
  });

  it('breakRegistry makes the registry revert or vanish on a fork and restores it with its delegations', async () => {
    fork ??= await forkChain(testnet);
    const cold = await fundedWallet(fork.rpcUrl);
    const hot = newWallet().address;
    const collection = fork.collection as Address;
    const tokenId = freshTokenId();
    await delegateERC721(fork, cold, hot, collection, tokenId);

    const restoreReverting = await breakRegistry(fork, 'revert');
    await expect(checkDelegateForERC721(fork, hot, cold.address, collection, tokenId)).rejects.toThrow();
    expect(await checkDelegateForERC721(testnet, hot, cold.address, collection, tokenId)).toBe(false); // shared chain answers
    await restoreReverting();
    expect(await checkDelegateForERC721(fork, hot, cold.address, collection, tokenId)).toBe(true);

    const restoreAbsent = await breakRegistry(fork, 'absent');
    expect(await codeAt(fork.rpcUrl, DELEGATE_REGISTRY_ADDRESS)).toBe('0x');
    await expect(checkDelegateForERC721(fork, hot, cold.address, collection, tokenId)).rejects.toThrow();
    await restoreAbsent();
    expect(await checkDelegateForERC721(fork, hot, cold.address, collection, tokenId)).toBe(true);

    // What a restart of npm run dev on a kept chain does: the code placed again, delegations kept.
    await setCodeAt(fork.rpcUrl, DELEGATE_REGISTRY_ADDRESS, '0x');
    expect(await installDelegateRegistry(fork.rpcUrl)).toBe(DELEGATE_REGISTRY_ADDRESS);
    expect(await checkDelegateForERC721(fork, hot, cold.address, collection, tokenId)).toBe(true);
  }, 60_000);
});
