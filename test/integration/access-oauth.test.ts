/**
 * Who may use an agent besides its owner, part three: a tool server's OAuth flow. An authorize URL
 * names the connection's `resource`; when that is more than a bare origin (it may carry a key) it
 * goes to the owner only: an admin delegate gets 403 `not_owner` from the authorize route, and a
 * save's answer leaves `authorizeUrl` out for it.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet } from '../support/chain';
import { delegateERC721 } from '../support/delegation';
import { deployment, expectError } from '../support/http';
import { login } from '../support/login';
import { addOAuth, gatewayCall } from '../support/oauth-flow';
import { type OAuthToolServer, startOAuthToolServer } from '../support/oauth-tool-server';
import { closePg } from '../support/pg';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let server: OAuthToolServer;

beforeAll(async () => {
  server = await startOAuthToolServer('oauth-access');
  worker = await workerWithToolServers(stack, { 'oauth-access': server.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([server?.close(), closePg()]);
});

describe('an admin delegate and a tool server OAuth flow', () => {
  it('a resource that is a full URL: the owner gets the authorize URL, the delegate 403 not_owner', async () => {
    const agent = await freshAgent(testnet);
    const other = newWallet();
    const token = await login(testnet, other);
    await delegateERC721(testnet, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    const settings = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 4096 };
    const saved = await agent.call('/llm/settings', {
      method: 'POST',
      json: { ...settings, access: { delegates: 'admin', renters: 'use' } },
    });
    expect(saved.status, saved.text).toBe(200);
    const added = await addOAuth(worker, agent, server);
    expect(added.status, added.text).toBe(200);
    expect(added.body.authorizeUrl).toBeDefined();
    const asDelegate = { ...agent, token };
    expectError(
      await gatewayCall(worker, asDelegate, `/mcp/connection/${added.body.id}/authorize`, { method: 'POST', json: {} }),
      403,
      'not_owner',
    );
    const owners = await gatewayCall(worker, agent, `/mcp/connection/${added.body.id}/authorize`, { method: 'POST', json: {} });
    expect(owners.status, owners.text).toBe(200);
    expect(new URL(owners.body.authorizeUrl).searchParams.get('resource')).toBe(`${server.base}/mcp`);
    expect((await gatewayCall(worker, agent, `/mcp/connection/${added.body.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    const byDelegate = await addOAuth(worker, asDelegate, server);
    expect(byDelegate.status, byDelegate.text).toBe(200);
    expect(byDelegate.body.authorizeUrl).toBeUndefined();
  });
});
