/**
 * The consent page's Deny (issue 33): the handle is checked first (bound to this browser, single
 * use), then the answer is the client's registered redirect URI with `error=access_denied`, its
 * `state` and `iss`; a forged or unbound handle is 400 and sends the browser nowhere.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { call, deployment, expectError } from '../support/http';
import { approve, authorizeUrl, mcpUrl, openAuthorizePage, pkce, publicClient, REDIRECT_URI } from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
const origin = new URL(testnet.baseUrl).origin;

afterAll(closePg);

const deny = (handle: string, cookie?: string) =>
  call<{ redirectTo: string }>(testnet.baseUrl, '/oauth/authorize/deny', {
    method: 'POST',
    json: { handle },
    ...(cookie === undefined ? {} : { headers: { cookie } }),
  });

async function pageFor() {
  const agent = await freshAgent(testnet);
  const page = await openAuthorizePage(
    authorizeUrl(testnet, {
      response_type: 'code',
      client_id: await publicClient(testnet),
      redirect_uri: REDIRECT_URI,
      state: 'deny-state',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: mcpUrl(testnet, agent.collection, agent.tokenId),
    }),
  );
  expect(page.res.status).toBe(200);
  return { agent, page };
}

describe('Deny on the consent page', () => {
  it('has a Deny button beside the approval', async () => {
    const { page } = await pageFor();
    expect(page.html).toMatch(/<button id="deny" type="button"[^>]*>Deny<\/button>/);
  });

  it("answers the client's registered redirect URI with error=access_denied, state and iss; the handle is used up", async () => {
    const { agent, page } = await pageFor();
    const denied = await deny(page.handle, page.cookie);
    expect(denied.status, denied.text).toBe(200);
    expect(denied.headers.get('location')).toBeNull();
    const to = new URL(denied.body.redirectTo);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('deny-state');
    expect(to.searchParams.get('iss')).toBe(origin);
    expect(to.searchParams.get('code')).toBeNull();
    expectError(await deny(page.handle, page.cookie), 400, 'consent_invalid');
    expectError(await approve(testnet, page, agent.owner), 400, 'consent_invalid');
  });

  it('refuses a forged handle, or one without its browser cookie (400 consent_invalid, no redirect)', async () => {
    const { page } = await pageFor();
    for (const res of [await deny('forged-handle', page.cookie), await deny('forged-handle'), await deny(page.handle)]) {
      expectError(res, 400, 'consent_invalid');
      expect(res.headers.get('location')).toBeNull();
      expect(res.text).not.toContain('127.0.0.1:9');
    }
    // The handle refused without its cookie still works with it.
    const denied = await deny(page.handle, page.cookie);
    expect(denied.status, denied.text).toBe(200);
  });
});
