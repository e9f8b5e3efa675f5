import { SignJWT, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Address } from 'viem';
import { startAnvil, type AnvilInstance } from '../../scripts/lib/anvil';
import { registerCollection } from '../../scripts/lib/collections';
import { deployDemoAgents, mintAgent } from '../../scripts/lib/contracts';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { flipCaseOfFirstLetter, fundedWallet, mintFreshAgent, newWallet, transferFreshAgent, type TestAccount } from '../support/chain';
import { call, deployment, errorCode } from '../support/http';
import { agentPath, login } from '../support/login';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const mainnet = deployment('mainnet');
const secret = new TextEncoder().encode(stack.jwtSecret);

let owner: TestAccount;
let token: string;
let tokenId: bigint;

beforeAll(async () => {
  owner = newWallet();
  tokenId = await mintFreshAgent(testnet, owner.address);
  token = await login(testnet, owner);
});

function getAgent(path: string, auth?: string) {
  return call(testnet.baseUrl, path, auth === undefined ? {} : { headers: { authorization: auth } });
}

describe('gate 1: bearer token', () => {
  it('lets the owner through with a valid token', async () => {
    const res = await getAgent(agentPath(testnet.collection, tokenId), `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      chainId: 80002,
      agentCollectionAddress: testnet.collection,
      agentTokenId: tokenId.toString(),
      kind: 'internal',
      owner: owner.address,
      role: 'owner',
      configured: { llmSettings: false, profile: false },
    });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer '],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
  ])('answers 401 for %s', async (_, header) => {
    const res = await getAgent(agentPath(testnet.collection, tokenId), header);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('unauthorized');
  });

  const now = () => Math.floor(Date.now() / 1000);
  const claims = () => ({ sub: owner.address, cId: 80002 });
  const forged: [string, () => Promise<string>, string][] = [
    [
      'alg none',
      async () =>
        `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify({ ...claims(), iat: now(), nbf: now(), exp: now() + 600 }))}.`,
      'unauthorized',
    ],
    [
      'HS384',
      () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS384' })
          .setIssuedAt()
          .setNotBefore(now())
          .setExpirationTime(now() + 600)
          .sign(secret),
      'unauthorized',
    ],
    [
      'no exp',
      () => new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setNotBefore(now()).sign(secret),
      'unauthorized',
    ],
    [
      'no cId',
      () =>
        new SignJWT({ sub: owner.address })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setNotBefore(now())
          .setExpirationTime(now() + 600)
          .sign(secret),
      'unauthorized',
    ],
    [
      'a flipped bit',
      async () => {
        const [h, p, s] = token.split('.') as [string, string, string];
        const sig = base64url.decode(s);
        sig[0] = sig[0]! ^ 1;
        return `${h}.${p}.${base64url.encode(sig)}`;
      },
      'unauthorized',
    ],
    [
      'expired',
      () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt(now() - 7200)
          .setNotBefore(now() - 7200)
          .setExpirationTime(now() - 3600)
          .sign(secret),
      'token_expired',
    ],
    [
      'nbf in the future',
      () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setNotBefore(now() + 3600)
          .setExpirationTime(now() + 7200)
          .sign(secret),
      'unauthorized',
    ],
    [
      'another secret',
      () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setNotBefore(now())
          .setExpirationTime(now() + 600)
          .sign(new TextEncoder().encode('x'.repeat(40))),
      'unauthorized',
    ],
  ];
  it.each(forged)('answers 401 for a token with %s', async (_, make, code) => {
    const res = await getAgent(agentPath(testnet.collection, tokenId), `Bearer ${await make()}`);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe(code);
  });

  it('accepts a token signed the same way (the forgeries above fail for their defect alone)', async () => {
    const good = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setNotBefore(now())
      .setExpirationTime(now() + 600)
      .sign(secret);
    expect((await getAgent(agentPath(testnet.collection, tokenId), `Bearer ${good}`)).status).toBe(200);
  });

  it('refuses a token of chain 137 on the 80002 deployment and the reverse (401)', async () => {
    const wallet = newWallet();
    const mainnetToken = await login(mainnet, wallet);
    const testnetToken = await login(testnet, wallet);
    const onTestnet = await call(testnet.baseUrl, agentPath(testnet.collection, tokenId), { token: mainnetToken });
    expect(onTestnet.status).toBe(401);
    expect(errorCode(onTestnet)).toBe('token_wrong_chain');
    const onMainnet = await call(mainnet.baseUrl, agentPath(mainnet.collection, 1n), { token: testnetToken });
    expect(onMainnet.status).toBe(401);
    expect(errorCode(onMainnet)).toBe('token_wrong_chain');
  });
});

describe('gate 2: agent identity and registered collection', () => {
  it.each(['-1', '0x10', '1e3', '01', (2n ** 256n).toString(), '1.0', ' 1', 'abc'])('answers 400 for token id %s', async (id) => {
    const res = await getAgent(`/agent/${testnet.collection}/${encodeURIComponent(id)}`, `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it('accepts the largest token id (2^256 - 1) as valid input (404: not minted)', async () => {
    const res = await getAgent(agentPath(testnet.collection, 2n ** 256n - 1n), `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('agent_not_found');
  });

  it.each([
    ['a bad checksum', () => flipCaseOfFirstLetter(testnet.collection)],
    ['not hex', () => `0x${'z'.repeat(40)}`],
    ['a wrong length', () => testnet.collection.slice(0, 41)],
  ])('answers 400 for a collection address with %s', async (_, address) => {
    const res = await getAgent(`/agent/${address()}/${tokenId}`, `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it('accepts the collection address in lower case', async () => {
    expect((await getAgent(agentPath(testnet.collection.toLowerCase(), tokenId), `Bearer ${token}`)).status).toBe(200);
  });

  it('answers 404 for an unregistered collection', async () => {
    const res = await getAgent(agentPath(newWallet().address, tokenId), `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('agent_not_found');
  });

  it('answers 404 for a collection registered on the other chain only', async () => {
    const minter = await fundedWallet(mainnet.rpcUrl);
    const other = await deployDemoAgents(mainnet.rpcUrl, minter.privateKey);
    await registerCollection(stack.databaseUrl, { chainId: 137, address: other, kind: 'internal' });
    const res = await getAgent(agentPath(other, tokenId), `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('agent_not_found');
  });
});

describe('gate 3: on-chain owner, read on every request', () => {
  it('answers 404 for a token that does not exist', async () => {
    const res = await getAgent(agentPath(testnet.collection, tokenId + 1_000_000n), `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('agent_not_found');
  });

  it('answers 403 to a wallet that does not own the agent', async () => {
    const stranger = await login(testnet, newWallet());
    const res = await call(testnet.baseUrl, agentPath(testnet.collection, tokenId), { token: stranger });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('not_owner');
    expect((res.body as { error: { message: string } }).error.message).toBe('You are not the owner of this agent');
  });

  it('locks the old owner out at once after a transfer; the new owner gets in', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const id = await mintFreshAgent(testnet, seller.address);
    const sellerToken = await login(testnet, seller);
    expect((await call(testnet.baseUrl, agentPath(testnet.collection, id), { token: sellerToken })).status).toBe(200);
    await transferFreshAgent(testnet, seller, buyer.address, id);
    const after = await call(testnet.baseUrl, agentPath(testnet.collection, id), { token: sellerToken });
    expect(after.status).toBe(403);
    expect(errorCode(after)).toBe('not_owner');
    const buyerToken = await login(testnet, buyer);
    expect((await call(testnet.baseUrl, agentPath(testnet.collection, id), { token: buyerToken })).status).toBe(200);
  });
});

describe('when the chain RPC is down', () => {
  let anvil: AnvilInstance;
  let worker: Awaited<ReturnType<typeof startMiniflare>>;
  let collection: Address;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 80002, port: await freePort() });
    const deployer = await fundedWallet(anvil.rpcUrl);
    collection = await deployDemoAgents(anvil.rpcUrl, deployer.privateKey);
    await registerCollection(stack.databaseUrl, { chainId: 80002, address: collection, kind: 'internal' });
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), RPC_URL: anvil.rpcUrl },
    });
    await mintAgent(anvil.rpcUrl, deployer.privateKey, collection, owner.address, 7n);
  });

  afterAll(async () => {
    await worker?.dispose();
    await anvil?.stop();
  });

  it('answers 503 with Retry-After instead of letting anyone through', async () => {
    expect((await call(worker.url, agentPath(collection, 7n), { token })).status).toBe(200);
    await anvil.stop();
    const res = await call(worker.url, agentPath(collection, 7n), { token });
    expect(res.status).toBe(503);
    expect(errorCode(res)).toBe('dependency_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    const health = await call(worker.url, '/health');
    expect(health.status).toBe(503);
  });
});
