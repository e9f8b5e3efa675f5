/**
 * The conformance suite's client scenarios the gateway's tool client takes part in, pinned: each
 * with the step the driver (./client.ts) runs through the gateway's public API. An `auth/*`
 * scenario is one more entry: its step registers the connection its own way (through the
 * gateway's OAuth routes for tool servers) and then lists and calls as the others do.
 */

import { oauthFlow, oauthResourceMismatch, oauthRetryLimit, oauthStepUp } from './client-auth';
import type { Step } from './client-step';

export type { DriverContext, Step } from './client-step';

export interface Scenario {
  step: Step;
  /** What the scenario checks of our client, for the summary. */
  checks: string;
  /**
   * A check of the scenario that cannot succeed honestly, by id, with the status it gets and
   * why. The scenario then goes to the suite's `--expected-failures` baseline, and it passes here
   * only when that check, and no other, is not a success (and with that status).
   */
  expected?: { check: string; status: 'WARNING' | 'FAILURE'; reason: string };
}

function expectText(result: { content?: unknown[] }, text: string): void {
  const first = result.content?.[0] as { type?: unknown; text?: unknown } | undefined;
  if (first?.type !== 'text' || first.text !== text)
    throw new Error(`expected the text ${JSON.stringify(text)}, got ${JSON.stringify(result)}`);
}

/** Registers the scenario's server, lists its tools, and calls `name` with `args`, expecting `text`. */
const registerAndCall =
  (name: string, args: Record<string, unknown>, text: string): Step =>
  async (ctx) => {
    const id = await ctx.register();
    const tools = await ctx.listTools(id);
    if (!tools.some((t) => t.name === name))
      throw new Error(`the server lists no ${name} (it lists ${tools.map((t) => t.name).join(', ')})`);
    expectText(await ctx.callTool(id, name, args), text);
  };

const COMMON_AUTH = 'discovery, a client identity, PKCE S256, the token request and Bearer on the MCP requests';

/**
 * The `auth/*` scenarios of suite 0.1.16: those of 2025-06-18 and 2025-11-25, the two of
 * 2025-03-26, and the three draft ones. Its `extension` ones do not apply: client credentials
 * (`client-credentials-jwt`, `-basic`) and cross-app access (`cross-app-access-complete-flow`)
 * are grants without a person, where the gateway acts for an owner who authorizes in a browser.
 */
const AUTH_SCENARIOS: Record<string, Scenario> = {
  'auth/metadata-default': {
    step: oauthFlow,
    checks: `resource metadata at its path-based well-known URL named in WWW-Authenticate; ${COMMON_AUTH}`,
  },
  'auth/metadata-var1': {
    step: oauthFlow,
    checks: `resource metadata found without WWW-Authenticate; OpenID configuration; ${COMMON_AUTH}`,
  },
  'auth/metadata-var2': {
    step: oauthFlow,
    checks: `resource metadata at the root well-known URL; an issuer with a path (/tenant1); ${COMMON_AUTH}`,
  },
  'auth/metadata-var3': {
    step: oauthFlow,
    checks: `resource metadata at a custom URL; OpenID configuration under the issuer's path; ${COMMON_AUTH}`,
  },
  'auth/basic-cimd': {
    step: oauthFlow,
    checks: `a URL as client_id where the server supports Client ID Metadata Documents; ${COMMON_AUTH}`,
    expected: {
      check: 'cimd-client-id-used',
      status: 'WARNING',
      // The check compares client_id with the suite's own fixed URL; the gateway's client id is
      // the URL of its own document, on its own origin, which no other client may claim.
      reason:
        "the check wants the suite's fixed client id https://conformance-test.local/client-metadata.json; the gateway sends the URL of its own document ({gateway}/oauth/client.json), as it must",
    },
  },
  'auth/scope-from-www-authenticate': { step: oauthFlow, checks: `the scope of the 401's WWW-Authenticate is asked; ${COMMON_AUTH}` },
  'auth/scope-from-scopes-supported': {
    step: oauthFlow,
    checks: `without a challenge scope, the resource metadata's scopes_supported is asked; ${COMMON_AUTH}`,
  },
  'auth/scope-omitted-when-undefined': { step: oauthFlow, checks: `no scope parameter when none is known; ${COMMON_AUTH}` },
  'auth/scope-step-up': {
    step: oauthStepUp,
    checks: 'a 403 insufficient_scope on tools/call asks for the added scopes in a second authorization',
  },
  'auth/scope-retry-limit': { step: oauthRetryLimit, checks: 'no more than 3 authorizations when every request is 403 insufficient_scope' },
  'auth/token-endpoint-auth-basic': { step: oauthFlow, checks: `client_secret_basic at the token endpoint; ${COMMON_AUTH}` },
  'auth/token-endpoint-auth-post': { step: oauthFlow, checks: `client_secret_post at the token endpoint; ${COMMON_AUTH}` },
  'auth/token-endpoint-auth-none': { step: oauthFlow, checks: `a public client (none) at the token endpoint; ${COMMON_AUTH}` },
  'auth/pre-registration': {
    step: oauthFlow,
    checks: 'the pre-registered client id and secret (Basic) where the server offers no registration',
  },
  'auth/2025-03-26-oauth-metadata-backcompat': {
    step: oauthFlow,
    checks: "no resource metadata: the server's own origin's authorization server metadata",
  },
  'auth/2025-03-26-oauth-endpoint-fallback': {
    step: oauthFlow,
    checks: "no metadata at all: /authorize, /token and /register on the server's origin",
  },
  // Draft-revision scenarios of the suite: they apply to the gateway's client, so they run too.
  'auth/resource-mismatch': { step: oauthResourceMismatch, checks: 'no authorization when the resource metadata names another resource' },
  'auth/offline-access-scope': {
    step: oauthFlow,
    // offline_access is a MAY: the gateway asks the scopes the server challenges with, so the suite
    // notes an INFO there (and another for the client metadata, which it does not read in time).
    checks: `the flow where the authorization server lists offline_access (asking it is optional); ${COMMON_AUTH}`,
  },
  'auth/offline-access-not-supported': {
    step: oauthFlow,
    checks: 'no offline_access asked where the authorization server does not list it',
  },
};

/** The pinned scenarios, in the order the suite runs them. */
export const SCENARIOS: Record<string, Scenario> = {
  initialize: {
    // Registration opens with initialize: our offered revision and clientInfo are what is checked.
    step: async (ctx) => {
      const id = await ctx.register();
      await ctx.listTools(id);
    },
    checks: 'initialize carries a revision it speaks (2025-11-25) and clientInfo name and version',
  },
  tools_call: {
    step: registerAndCall('add_numbers', { a: 5, b: 3 }, 'The sum of 5 and 3 is 8'),
    checks: 'add_numbers is called with its arguments and its result read',
  },
  'sse-retry': {
    // The server closes the call's SSE stream after a priming event: the client resumes with a GET.
    step: registerAndCall('test_reconnection', {}, 'Reconnection test completed successfully'),
    checks: "a closed SSE stream is resumed with GET and Last-Event-ID after the server's retry wait",
  },
  ...AUTH_SCENARIOS,
};
