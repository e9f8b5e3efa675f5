/**
 * Approving an OAuth grant is its own purpose (issue 33): the approval message names the client
 * and the agent and lists the agent's MCP URL as its resource; a login signature does not approve
 * a grant, an approval signature does not log in nor pair a chat, and an approval of one client
 * or agent does not approve another.
 */
import { getAddress } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { finish, initLogin, verifyWallet } from '../support/login';
import {
  type AuthorizePage,
  approvalMessage,
  authorizeUrl,
  mcpUrl,
  openAuthorizePage,
  pkce,
  postApproval,
  REDIRECT_URI,
  registerClient,
} from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');

afterAll(closePg);

async function pageFor(agent: { collection: string; tokenId: bigint }, clientName = 'Approval test client'): Promise<AuthorizePage> {
  const registered = await registerClient(testnet, { client_name: clientName });
  const page = await openAuthorizePage(
    authorizeUrl(testnet, {
      response_type: 'code',
      client_id: registered.body.client_id,
      redirect_uri: REDIRECT_URI,
      state: 's',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: mcpUrl(testnet, agent.collection, agent.tokenId),
    }),
  );
  expect(page.res.status, page.html.slice(0, 300)).toBe(200);
  return page;
}

describe('the approval message', () => {
  it('names the client (its unverified name and id) and the agent, lists its MCP URL, and is no sign-in', async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent);
    const { message, nonce } = await approvalMessage(testnet, page, agent.owner.address);
    const parsed = parseSiweMessage(message);
    expect(parsed.nonce).toBe(nonce);
    expect(parsed.address).toBe(agent.owner.address);
    expect(parsed.resources).toEqual([mcpUrl(testnet, agent.collection, agent.tokenId)]);
    expect(parsed.statement).toContain(`"Approval test client" (unverified name, client id ${page.clientId})`);
    expect(parsed.statement).toContain(`agent #${agent.tokenId} of collection ${getAddress(agent.collection)}`);
    expect(parsed.statement).toContain('This does not sign you in');
  });

  it('names a client by its id alone when its name is not one printable line', async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent, 'An "official" app');
    const { message } = await approvalMessage(testnet, page, agent.owner.address);
    expect(parseSiweMessage(message).statement).toContain(`the app with client id ${page.clientId} to use`);
  });

  it('is refused for an unknown client or a resource that is no agent (400 consent_invalid)', async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent);
    const ask = (clientId: string, resource: string) =>
      call(testnet.baseUrl, '/oauth/authorize/message', {
        method: 'POST',
        json: { clientId, resource, walletAddress: agent.owner.address, chainId: testnet.chainId },
      });
    expectError(await ask('no-such-client', page.resource), 400, 'consent_invalid');
    expectError(await ask(page.clientId, `${testnet.baseUrl}/agent/x/1/mcp`), 400, 'consent_invalid');
  });
});

describe('purposes never cross', () => {
  it('a login signature does not approve a grant (401 message_purpose_mismatch)', async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent);
    const login = await initLogin(testnet, agent.owner.address);
    const signature = await agent.owner.signMessage({ message: login.message });
    expectError(await postApproval(testnet, page, agent.owner.address, { nonce: login.nonce, signature }), 401, 'message_purpose_mismatch');
  });

  it('an approval signature does not log in (finish, with its nonce or without) nor pair a chat', async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent);
    const approval = await approvalMessage(testnet, page, agent.owner.address);
    const signature = await agent.owner.signMessage({ message: approval.message });
    const body = { walletAddress: agent.owner.address, chainId: testnet.chainId, signature };
    const withNonce = await finish(testnet.baseUrl, { ...body, nonce: approval.nonce });
    expect(withNonce.status, withNonce.text).toBe(401);
    expect(withNonce.body.token).toBeUndefined();
    const without = await finish(testnet.baseUrl, body);
    expect(without.status, without.text).toBe(401);
    expectError(await verifyWallet(testnet.baseUrl, { ...body, message: approval.message }), 401, 'message_purpose_mismatch');
    // Still unused: the approval it was made for goes through.
    const approved = await postApproval(testnet, page, agent.owner.address, { nonce: approval.nonce, signature });
    expect(approved.status, approved.text).toBe(200);
  });

  it('an approval of another client or another agent does not approve this one (401 signature_invalid)', async () => {
    const agent = await freshAgent(testnet);
    const other = await freshAgent(testnet, { owner: agent.owner, token: agent.token });
    const page = await pageFor(agent);
    const otherClient = await pageFor(agent);
    const otherAgent = await pageFor(other);
    for (const elsewhere of [otherClient, otherAgent]) {
      const approval = await approvalMessage(testnet, elsewhere, agent.owner.address);
      const signature = await agent.owner.signMessage({ message: approval.message });
      const fresh = await pageFor(agent);
      expectError(await postApproval(testnet, fresh, agent.owner.address, { nonce: approval.nonce, signature }), 401, 'signature_invalid');
    }
    expect(page.handle).not.toBe('');
  });

  it("a nonce that is not this gateway's approval nonce is 401 login_message_invalid", async () => {
    const agent = await freshAgent(testnet);
    const page = await pageFor(agent);
    const signature = await newWallet().signMessage({ message: 'x' });
    expectError(await postApproval(testnet, page, agent.owner.address, { nonce: 'a'.repeat(73), signature }), 401, 'login_message_invalid');
  });
});
