/**
 * The pure parts of OAuth tool servers on the command line and the dashboard: the options of
 * `tools add --oauth` and the dashboard's OAuth credential form both give what the route's own
 * schema accepts; `--wait-seconds` bounds; the line `tools list` prints for each connection.
 */
import { describe, expect, it } from 'vitest';
import type { McpConnection } from '../../src/client/types';
import { DEFAULT_WAIT_SECONDS, oauthAuthFromOptions, waitSeconds } from '../../src/cli/tools-oauth';
import { describeConnection } from '../../src/cli/tools';
import { authOf, credentialProblems, NO_CREDENTIAL } from '../../src/dashboard/ui/credential-rules';
import { AuthInputSchema } from '../../src/tool-servers/connection.schemas';

describe('tools add --oauth options', () => {
  it('scopes repeated or comma-separated, a client id, its secret from the environment: what the route accepts', () => {
    const auth = oauthAuthFromOptions(
      { scope: ['issues:read,repo', 'admin'], 'client-id': 'pre-1', 'client-secret-env': 'SECRET' },
      { SECRET: ' s3cret-value ' },
    );
    expect(auth).toEqual({ type: 'oauth', scopes: ['issues:read', 'repo', 'admin'], clientId: 'pre-1', clientSecret: 's3cret-value' });
    expect(AuthInputSchema.parse(auth)).toEqual(auth);
    expect(oauthAuthFromOptions({}, {})).toEqual({ type: 'oauth' });
  });

  it('refuses a scope the gateway would, a secret without a client, an unset variable (usage errors)', () => {
    expect(() => oauthAuthFromOptions({ scope: ['a"b'] }, {})).toThrow('a scope is 1..200 printable characters');
    expect(() => oauthAuthFromOptions({ 'client-secret-env': 'S' }, { S: 'x' })).toThrow('--client-secret-env needs --client-id');
    expect(() => oauthAuthFromOptions({ 'client-id': 'c', 'client-secret-env': 'S' }, {})).toThrow('S is not set or empty');
    expect(() => oauthAuthFromOptions({ scope: Array.from({ length: 51 }, (_, i) => `s${i}`) }, {})).toThrow('at most 50 scopes');
  });

  it('--wait-seconds: 0..3600, default 300', () => {
    expect(waitSeconds({})).toBe(DEFAULT_WAIT_SECONDS);
    expect(waitSeconds({ 'wait-seconds': '0' })).toBe(0);
    expect(waitSeconds({ 'wait-seconds': '3600' })).toBe(3600);
    for (const bad of ['3601', '-1', '1.5', 'soon']) expect(() => waitSeconds({ 'wait-seconds': bad })).toThrow('--wait-seconds');
  });
});

describe('tools list lines', () => {
  const base: McpConnection = {
    id: 'id-1',
    url: 'https://tracker.example/mcp',
    name: 'tracker',
    auth: { type: 'oauth', valueSet: false },
    credential: 'set',
    status: 'authorization_required',
    authorization: { scopes: ['read'], expiresAt: null },
    timeoutMs: 10_000,
    tools: [],
    createdAt: '2026-11-27T00:00:00.000Z',
  };
  it('an OAuth connection: its scopes and status; any other: its credential and status', () => {
    expect(describeConnection(base)).toBe('"tracker" https://tracker.example/mcp: 0 tools, OAuth (scopes read), authorization_required');
    const header: McpConnection = {
      ...base,
      name: null,
      auth: { type: 'header', headerName: 'x-api-key', valueSet: true },
      status: 'ready',
      tools: [{ name: 'echo' }],
    };
    delete header.authorization;
    expect(describeConnection(header)).toBe('https://tracker.example/mcp: 1 tool (echo), credential set, ready');
  });
});

describe("the dashboard's OAuth credential form", () => {
  it('gives what the route accepts: scopes split on spaces and commas, the secret only with a client id', () => {
    const form = { ...NO_CREDENTIAL, type: 'oauth' as const, scopes: ' read, write  admin ', clientId: ' pre-1 ', value: 'secret-1' };
    expect(authOf(form)).toEqual({ type: 'oauth', scopes: ['read', 'write', 'admin'], clientId: 'pre-1', clientSecret: 'secret-1' });
    expect(AuthInputSchema.parse(authOf(form))).toEqual(authOf(form));
    expect(authOf({ ...NO_CREDENTIAL, type: 'oauth' })).toEqual({ type: 'oauth' });
    expect(credentialProblems({ ...form, clientId: '' }).value).toContain('A client secret goes with a client ID');
    expect(credentialProblems({ ...form, scopes: 'read "x' }).scopes).toContain('"x" is not a scope');
    expect(credentialProblems(form)).toEqual({ scopes: undefined, value: undefined });
  });
});
