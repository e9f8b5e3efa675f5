/**
 * The agent's profile and its public ERC-8004 registration file: the owner sets and
 * reads the profile (keys and strangers refused), anyone reads the file without a credential, and
 * it says `active: false` once the wallet that set it no longer owns the agent. The file is the
 * only public agent route: every other operation still answers 401 without a token.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
const profile = {
  name: 'Warranty desk',
  description: 'Answers questions about orders.\nReach it over MCP.',
  image: 'https://example.com/a.png',
};
const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

afterAll(closePg);

const registration = (collection: string, tokenId: bigint | string) =>
  call(testnet.baseUrl, agentPath(collection, tokenId, '/registration.json'));

describe('the profile', () => {
  it('is set and read by the owner, audited, and served publicly as an ERC-8004 registration file', async () => {
    const agent = await freshAgent(testnet);
    expectError(await agent.call('/profile'), 404, 'profile_not_found');
    expectError(await registration(agent.collection, agent.tokenId), 404, 'profile_not_found');

    const saved = await agent.call('/profile', { method: 'PUT', json: profile });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ ...profile, setByWallet: agent.owner.address.toLowerCase() });
    expect((await agent.call('/profile')).body).toEqual(saved.body);
    const audit = await agent.call('/audit');
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toContain('agent_profile.set');

    const file = await registration(agent.collection, agent.tokenId);
    expect(file.status, file.text).toBe(200);
    expect(file.headers.get('cache-control')).toBe('public, max-age=60');
    expect(file.headers.get('access-control-allow-origin')).toBe('*');
    expect(file.body).toEqual({
      type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
      ...profile,
      services: [
        { name: 'MCP', endpoint: `${testnet.baseUrl}/agent/${agent.collection}/${agent.tokenId}/mcp`, version: '2025-11-25' },
        {
          name: 'A2A',
          endpoint: `${testnet.baseUrl}/agent/${agent.collection}/${agent.tokenId}/.well-known/agent-card.json`,
          version: '1.0',
        },
      ],
      x402Support: false,
      active: true,
    });

    // A replacement without an image has none; a small data: URI is an image too.
    const bare = await agent.call('/profile', { method: 'PUT', json: { name: 'Desk', description: 'Orders.' } });
    expect(bare.body.image).toBeNull();
    expect((await registration(agent.collection, agent.tokenId)).body).not.toHaveProperty('image');
    const inline = await agent.call('/profile', { method: 'PUT', json: { ...profile, image: PNG_1PX } });
    expect(inline.status, inline.text).toBe(200);
  });

  it('refuses bad input with validation_failed and the field at fault', async () => {
    const agent = await freshAgent(testnet);
    const bad: [string, unknown][] = [
      ['name', { ...profile, name: '' }],
      ['name', { ...profile, name: 'x'.repeat(101) }],
      ['name', { ...profile, name: 'two\nlines' }],
      ['name', { ...profile, name: '   ' }],
      ['description', { ...profile, description: 'x'.repeat(2_001) }],
      ['description', { ...profile, description: 'bell \u0007' }],
      // C1 controls (NEL), line/paragraph separators and bidi controls would reach the public registration file.
      ['name', { ...profile, name: 'next\u0085line' }],
      ['name', { ...profile, name: 'line\u2028separator' }],
      ['name', { ...profile, name: 'desk\u202efdp.exe' }],
      ['name', { ...profile, name: 'isolate \u2066x\u2069' }],
      ['description', { ...profile, description: 'paragraph\u2029separator' }],
      ['description', { ...profile, description: 'override \u202d' }],
      ['description', { ...profile, description: 'next\u0085line' }],
      ['description', { name: 'n' }],
      ['image', { ...profile, image: 'http://example.com/a.png' }],
      ['image', { ...profile, image: 'https://user:pw@example.com/a.png' }],
      ['image', { ...profile, image: 'javascript:alert(1)' }],
      ['image', { ...profile, image: `https://example.com/${'a'.repeat(2_048)}` }],
      ['image', { ...profile, image: 'data:image/svg+xml;base64,PHN2Zy8+' }],
      ['image', { ...profile, image: `data:image/png;base64,${'A'.repeat(16_384)}` }],
      ['', { ...profile, extra: true }],
    ];
    for (const [field, json] of bad) {
      const res = await agent.call('/profile', { method: 'PUT', json });
      expectError(res, 400, 'validation_failed');
      if (field) expect(JSON.stringify(res.body), JSON.stringify(json).slice(0, 80)).toContain(`"path":"${field}"`);
    }
    // NUL is refused before any route's rules, as everywhere.
    expectError(await agent.call('/profile', { method: 'PUT', json: { ...profile, name: 'a\u0000' } }), 400, 'nul_character');
    expectError(await agent.call('/profile'), 404, 'profile_not_found');
  });

  it("is the owner's alone: an agent key is 403 key_not_allowed, a stranger 403 not_owner", async () => {
    const agent = await freshAgent(testnet);
    const { key } = await createKey(agent, ['contexts:read', 'contexts:write', 'reply']);
    expectError(await withKey(agent, key, '/profile', { method: 'PUT', json: profile }), 403, 'key_not_allowed');
    expectError(await withKey(agent, key, '/profile'), 403, 'key_not_allowed');
    const stranger = await login(testnet, newWallet());
    const path = agentPath(agent.collection, agent.tokenId, '/profile');
    expectError(await call(testnet.baseUrl, path, { method: 'PUT', json: profile, token: stranger }), 403, 'not_owner');
    expectError(await call(testnet.baseUrl, path, { token: stranger }), 403, 'not_owner');
    expectError(await call(testnet.baseUrl, path, { method: 'PUT', json: profile }), 401, 'unauthorized');
  });

  it('after a transfer the file says active: false until the new owner sets the profile', async () => {
    const agent = await freshAgent(testnet);
    expect((await agent.call('/profile', { method: 'PUT', json: profile })).status).toBe(200);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    const stale = await registration(agent.collection, agent.tokenId);
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ name: profile.name, active: false });
    expectError(await agent.call('/profile', { method: 'PUT', json: profile }), 403, 'not_owner');

    const buyerToken = await login(testnet, buyer);
    const path = agentPath(agent.collection, agent.tokenId, '/profile');
    const mine = await call(testnet.baseUrl, path, {
      method: 'PUT',
      json: { name: 'New desk', description: 'Under new owners.' },
      token: buyerToken,
    });
    expect(mine.status, mine.text).toBe(200);
    expect((await registration(agent.collection, agent.tokenId)).body).toMatchObject({ name: 'New desk', active: true });
  });
});

describe('registration.json and the A2A Agent Card, the public agent routes', () => {
  it('answers 404 agent_not_found for an unregistered collection, 400 for a bad path, and a token sent along changes nothing', async () => {
    const unregistered = '0x000000000000000000000000000000000000dEaD';
    expectError(await registration(unregistered, 1n), 404, 'agent_not_found');
    expectError(await registration('0xnothex', 1n), 400, 'validation_failed');
    expectError(await registration(testnet.collection, '01'), 400, 'validation_failed');
    const agent = await freshAgent(testnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    const withToken = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/registration.json'), {
      token: 'not.a.token',
    });
    expect(withToken.status).toBe(200);
    // A token id nobody minted has no profile.
    expectError(await registration(agent.collection, agent.tokenId + 1_000_000n), 404, 'profile_not_found');
  });

  it('are, with the paid reply, the only agent operations without `security`; every other operation answers 401 without a token', async () => {
    const agent = await freshAgent(testnet);
    const doc = (await call(testnet.baseUrl, '/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>>;
    };
    const open: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (Array.isArray(operation.security) && operation.security.length === 0) {
          open.push(operation.operationId);
          continue;
        }
        const concrete = path
          .replace('{agentCollectionAddress}', agent.collection)
          .replace('{agentTokenId}', agent.tokenId.toString())
          .replace(/\{[^}]+\}/g, '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21');
        const init = { method: method.toUpperCase(), ...(method === 'get' || method === 'delete' ? {} : { json: {} }) };
        expectError(await call(testnet.baseUrl, concrete, init), 401, 'unauthorized');
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
    // Public outside /agent: health, login, wallet verification, OAuth (its metadata, registration, token, authorize page,
    // the approval's message, approve and deny) and the tool-server OAuth client's callback page and metadata document.
    const publicElsewhere = [
      'getHealth',
      'initLogin',
      'finishLogin',
      'verifyWallet',
      'getProtectedResourceMetadata',
      'getA2aProtectedResourceMetadata',
      'getAuthorizationServerMetadata',
      'registerOAuthClient',
      'oauthToken',
      'oauthAuthorizePage',
      'oauthApprove',
      'oauthApprovalMessage',
      'oauthDeny',
      'toolServerOAuthCallback',
      'getClientMetadataDocument',
    ];
    // The paid reply is public too: it takes a payment instead of a credential (paid-ask.test.ts).
    expect(open.filter((id) => !publicElsewhere.includes(id)).sort()).toEqual(['getAgentCard', 'getRegistration', 'paidAsk']);
  });
});
