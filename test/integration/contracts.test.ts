import net from 'node:net';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type PublicClient,
  createPublicClient,
  createWalletClient,
  http,
  toFunctionSignature,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../scripts/lib/anvil.js';
import {
  ANVIL_ACCOUNTS,
  type CompiledContracts,
  compileContracts,
  demoAgentsAbi,
  deployDemoAgents,
  deployPlainAgents,
  deployTestWallet,
  mintAgent,
  testWalletAbi,
  transferAgent,
} from '../../scripts/lib/contracts.js';

const CHAIN_ID = 80002;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Signatures ("function ownerOf(uint256)", "error ERC721NonexistentToken(uint256)", ...) of an ABI. */
function signatures(abi: readonly { type: string }[]): Set<string> {
  return new Set(
    abi
      .filter((item) => item.type === 'function' || item.type === 'error' || item.type === 'event')
      .map((item) => `${item.type} ${toFunctionSignature(item as Parameters<typeof toFunctionSignature>[0])}`),
  );
}

describe('dev contracts on anvil', () => {
  let anvil: AnvilInstance | undefined;
  let compiled: CompiledContracts;
  let publicClient: PublicClient;
  let collection: Address;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, port: await freePort() });
    publicClient = createPublicClient({ transport: http(anvil.rpcUrl) });
    compiled = await compileContracts();
    collection = await deployDemoAgents(anvil.rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
  }, 60_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  it('ANVIL_ACCOUNTS private keys match their addresses', () => {
    for (const { address, privateKey } of ANVIL_ACCOUNTS) {
      expect(privateKeyToAccount(privateKey).address).toBe(address);
    }
  });

  it('runs anvil with the requested chain id', async () => {
    expect(await publicClient.getChainId()).toBe(CHAIN_ID);
  });

  it('hand-written ABIs are subsets of the compiled ABIs', () => {
    const demo = signatures(compiled.DemoAgents.abi);
    for (const sig of signatures(demoAgentsAbi)) expect(demo).toContain(sig);
    const plain = signatures(compiled.PlainAgents.abi);
    for (const sig of [...signatures(demoAgentsAbi)].filter((sig) => !plain.has(sig))) {
      expect([
        'function totalSupply()',
        'function tokenByIndex(uint256)',
        'function tokenOfOwnerByIndex(address,uint256)',
        'error ERC721OutOfBoundsIndex(address,uint256)',
      ]).toContain(sig);
    }
    expect(plain).toContain('function mint(address,uint256)');
    const wallet = signatures(compiled.TestWallet1271.abi);
    for (const sig of signatures(testWalletAbi)) expect(wallet).toContain(sig);
  });

  it('exposes ERC-721 metadata and interfaces', async () => {
    const read = (functionName: 'name' | 'symbol') => publicClient.readContract({ address: collection, abi: demoAgentsAbi, functionName });
    expect(await read('name')).toBe('Demo Agents');
    expect(await read('symbol')).toBe('AGENT');
    for (const id of ['0x01ffc9a7', '0x80ac58cd', '0x5b5e139f', '0x780e9d63'] as const) {
      expect(
        await publicClient.readContract({
          address: collection,
          abi: demoAgentsAbi,
          functionName: 'supportsInterface',
          args: [id],
        }),
      ).toBe(true);
    }
  });

  it('mints, reports owners, reverts with ERC721NonexistentToken and transfers', async () => {
    const rpcUrl = anvil!.rpcUrl;
    const holder = ANVIL_ACCOUNTS[1];
    await mintAgent(rpcUrl, ANVIL_ACCOUNTS[0].privateKey, collection, holder.address, 1n);

    const ownerOf = (tokenId: bigint) =>
      publicClient.readContract({ address: collection, abi: demoAgentsAbi, functionName: 'ownerOf', args: [tokenId] });

    expect(await ownerOf(1n)).toBe(holder.address);
    expect(
      await publicClient.readContract({
        address: collection,
        abi: demoAgentsAbi,
        functionName: 'balanceOf',
        args: [holder.address],
      }),
    ).toBe(1n);

    const err = await ownerOf(2n).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BaseError);
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError);
    expect((reverted as ContractFunctionRevertedError).data?.errorName).toBe('ERC721NonexistentToken');
    expect((reverted as ContractFunctionRevertedError).data?.args).toEqual([2n]);

    // minting an existing token fails
    await expect(mintAgent(rpcUrl, ANVIL_ACCOUNTS[0].privateKey, collection, holder.address, 1n)).rejects.toThrow(/ERC721InvalidSender/);
    // a non-owner cannot transfer
    await expect(
      transferAgent(rpcUrl, ANVIL_ACCOUNTS[2].privateKey, collection, holder.address, ANVIL_ACCOUNTS[2].address, 1n),
    ).rejects.toThrow(/ERC721InsufficientApproval/);

    const fresh = privateKeyToAccount(generatePrivateKey()).address;
    await transferAgent(rpcUrl, holder.privateKey, collection, holder.address, fresh, 1n);
    expect(await ownerOf(1n)).toBe(fresh);
  });

  it('enumerates (ERC-721 Enumerable): tokens by owner and in all, kept whole across transfers; PlainAgents does not', async () => {
    const rpcUrl = anvil!.rpcUrl;
    const enumerable = await deployDemoAgents(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
    const [a, b] = [ANVIL_ACCOUNTS[1], ANVIL_ACCOUNTS[2]];
    for (const [to, id] of [
      [a.address, 10n],
      [a.address, 11n],
      [a.address, 12n],
      [b.address, 20n],
    ] as const) {
      await mintAgent(rpcUrl, ANVIL_ACCOUNTS[0].privateKey, enumerable, to, id);
    }
    const read = <F extends 'totalSupply' | 'tokenByIndex' | 'tokenOfOwnerByIndex' | 'balanceOf'>(
      functionName: F,
      args: readonly unknown[],
    ) => publicClient.readContract({ address: enumerable, abi: demoAgentsAbi, functionName, args } as never) as Promise<bigint>;
    const tokensOf = async (owner: Address) => {
      const n = await read('balanceOf', [owner]);
      const ids: bigint[] = [];
      for (let i = 0n; i < n; i++) ids.push(await read('tokenOfOwnerByIndex', [owner, i]));
      return ids;
    };
    expect(await read('totalSupply', [])).toBe(4n);
    expect(await read('tokenByIndex', [3n])).toBe(20n);
    expect(await tokensOf(a.address)).toEqual([10n, 11n, 12n]);
    // The first of a's tokens leaves: the last fills its place.
    await transferAgent(rpcUrl, a.privateKey, enumerable, a.address, b.address, 10n);
    expect(await tokensOf(a.address)).toEqual([12n, 11n]);
    expect(await tokensOf(b.address)).toEqual([20n, 10n]);
    await transferAgent(rpcUrl, b.privateKey, enumerable, b.address, b.address, 20n); // to oneself: nothing moves
    expect(await tokensOf(b.address)).toEqual([20n, 10n]);
    expect(await read('totalSupply', [])).toBe(4n);
    const outOfBounds = await read('tokenOfOwnerByIndex', [a.address, 2n]).then(
      () => undefined,
      (e: unknown) => e,
    );
    const reverted = (outOfBounds as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(reverted.data?.errorName).toBe('ERC721OutOfBoundsIndex');

    const plain = await deployPlainAgents(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
    await mintAgent(rpcUrl, ANVIL_ACCOUNTS[0].privateKey, plain, a.address, 1n);
    const supports = (id: `0x${string}`) =>
      publicClient.readContract({ address: plain, abi: demoAgentsAbi, functionName: 'supportsInterface', args: [id] });
    expect(await supports('0x80ac58cd')).toBe(true);
    expect(await supports('0x780e9d63')).toBe(false);
  });

  it('TestWallet1271 validates its owner signatures (ERC-1271) and receives NFTs', async () => {
    const rpcUrl = anvil!.rpcUrl;
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wallet = await deployTestWallet(rpcUrl, ANVIL_ACCOUNTS[0].privateKey, owner.address);

    expect(await publicClient.readContract({ address: wallet, abi: testWalletAbi, functionName: 'owner' })).toBe(owner.address);

    const message = `Sign in to agent-gateway\nnonce: ${Date.now()}`;
    const signature = await owner.signMessage({ message });
    expect(await publicClient.verifyMessage({ address: wallet, message, signature })).toBe(true);

    const strangerSignature = await stranger.signMessage({ message });
    expect(await publicClient.verifyMessage({ address: wallet, message, signature: strangerSignature })).toBe(false);
    // the owner's signature over a different message is rejected too
    expect(await publicClient.verifyMessage({ address: wallet, message: `${message}!`, signature })).toBe(false);

    // safeTransferFrom from an EOA into the contract wallet exercises onERC721Received
    const sender = ANVIL_ACCOUNTS[2];
    await mintAgent(rpcUrl, sender.privateKey, collection, sender.address, 42n);
    const senderClient = createWalletClient({
      account: privateKeyToAccount(sender.privateKey),
      transport: http(rpcUrl),
    });
    const hash = await senderClient.writeContract({
      address: collection,
      abi: demoAgentsAbi,
      functionName: 'safeTransferFrom',
      args: [sender.address, wallet, 42n],
      chain: null,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
    expect(await publicClient.readContract({ address: collection, abi: demoAgentsAbi, functionName: 'ownerOf', args: [42n] })).toBe(wallet);

    // a contract without onERC721Received is rejected by safeTransferFrom (DemoAgents itself)
    await mintAgent(rpcUrl, sender.privateKey, collection, sender.address, 43n);
    await expect(
      senderClient.writeContract({
        address: collection,
        abi: demoAgentsAbi,
        functionName: 'safeTransferFrom',
        args: [sender.address, collection, 43n],
        chain: null,
      }),
    ).rejects.toThrow(/ERC721InvalidReceiver/);
  });
});
