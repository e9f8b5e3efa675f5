/**
 * The pure rules of OAuth for MCP and A2A clients (src/oauth): one canonical resource per door of an agent, the
 * subject a code or token names by its prefix, the redirect URI and registration bounds.
 */
import { describe, expect, it } from 'vitest';
import { checkRegistration, isAllowedRedirectUri } from '../../src/oauth/registration';
import {
  agentResource,
  agentResources,
  grantUserId,
  mcpResource,
  parseAgentResource,
  resourceOfAgentPath,
  resourceOfMcpPath,
  subjectOfCredential,
} from '../../src/oauth/resource';

const ORIGIN = 'https://gateway.example.org';
const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('the resource of an agent', () => {
  it('is its MCP URL with the collection in EIP-55 form, and parses back only in that spelling', () => {
    const resource = mcpResource(ORIGIN, COLLECTION.toLowerCase() as `0x${string}`, 7n);
    expect(resource).toBe(`${ORIGIN}/agent/${COLLECTION}/7/mcp`);
    expect(parseAgentResource(ORIGIN, resource)).toEqual({ collection: COLLECTION, tokenId: 7n, surface: 'mcp' });
    for (const other of [
      `${ORIGIN}/agent/${COLLECTION.toLowerCase()}/7/mcp`,
      `https://elsewhere.example/agent/${COLLECTION}/7/mcp`,
      `${resource}?x=1`,
      `${resource}#f`,
      `${resource}/`,
      `${ORIGIN}/agent/${COLLECTION}/07/mcp`,
      `${ORIGIN}/agent/${COLLECTION}/7`,
      'not a url',
    ])
      expect(parseAgentResource(ORIGIN, other), other).toBeNull();
  });

  it('of a request path: the MCP route only, the address made canonical', () => {
    expect(resourceOfMcpPath(ORIGIN, `/agent/${COLLECTION.toLowerCase()}/7/mcp`)).toBe(`${ORIGIN}/agent/${COLLECTION}/7/mcp`);
    expect(resourceOfMcpPath(ORIGIN, `/agent/${COLLECTION}/7/contexts`)).toBeUndefined();
    // A malformed agent names no resource: a token there is refused like anywhere else.
    expect(resourceOfMcpPath(ORIGIN, '/agent/0x12/7/mcp')).toBeUndefined();
    expect(resourceOfMcpPath(ORIGIN, `/agent/${COLLECTION}/7/a2a`)).toBeUndefined();
  });

  it('has a second door, the A2A URL: its own resource, never mistaken for the MCP one', () => {
    const a2a = agentResource(ORIGIN, COLLECTION.toLowerCase() as `0x${string}`, 7n, 'a2a');
    expect(a2a).toBe(`${ORIGIN}/agent/${COLLECTION}/7/a2a`);
    expect(agentResources(ORIGIN, COLLECTION, 7n)).toEqual([`${ORIGIN}/agent/${COLLECTION}/7/mcp`, a2a]);
    expect(parseAgentResource(ORIGIN, a2a)).toEqual({ collection: COLLECTION, tokenId: 7n, surface: 'a2a' });
    for (const other of [
      `${ORIGIN}/agent/${COLLECTION}/7/A2A`,
      `${ORIGIN}/agent/${COLLECTION}/7/a2a/`,
      `${ORIGIN}/agent/${COLLECTION}/7/a2a?x`,
    ])
      expect(parseAgentResource(ORIGIN, other), other).toBeNull();
    expect(resourceOfAgentPath(ORIGIN, `/agent/${COLLECTION.toLowerCase()}/7/a2a`)).toBe(a2a);
    expect(resourceOfAgentPath(ORIGIN, `/agent/${COLLECTION}/7/mcp`)).toBe(`${ORIGIN}/agent/${COLLECTION}/7/mcp`);
    expect(resourceOfAgentPath(ORIGIN, `/agent/${COLLECTION}/7/.well-known/agent-card.json`)).toBeUndefined();
  });
});

describe('the subject of a code or token', () => {
  it('is read from its prefix and nothing else', () => {
    const subject = { wallet: WALLET as `0x${string}`, collection: COLLECTION as `0x${string}`, tokenId: 7n };
    const userId = grantUserId(subject);
    expect(userId).not.toContain(':');
    expect(subjectOfCredential(`${userId}:grant:secret`)).toEqual(subject);
    expect(subjectOfCredential('a:b:c')).toBeNull();
    expect(subjectOfCredential(`${userId}.extra:g:s`)).toBeNull();
    expect(subjectOfCredential(`${WALLET}.${COLLECTION}.-1:g:s`)).toBeNull();
  });
});

describe('registration', () => {
  it.each([
    ['https://app.example/cb', true],
    ['http://127.0.0.1:33418/callback', true],
    ['http://[::1]:9/cb', true],
    ['http://localhost/cb', true],
    ['http://example.com/cb', false],
    ['http://127.0.0.1.nip.io/cb', false],
    ['https://app.example/cb#frag', false],
    ['https://user:pw@app.example/cb', false],
    ['com.example.app:/cb', false],
    ['javascript:alert(1)', false],
  ])('redirect URI %s allowed: %s', (uri, allowed) => {
    expect(isAllowedRedirectUri(uri)).toBe(allowed);
  });

  it('answers invalid_redirect_uri for a bad redirect URI and invalid_client_metadata for any other field', () => {
    expect(checkRegistration({ redirect_uris: ['https://app.example/cb'] })).toBeUndefined();
    expect(checkRegistration({ redirect_uris: ['http://example.com/cb'] })?.code).toBe('invalid_redirect_uri');
    expect(checkRegistration({ redirect_uris: ['https://app.example/cb'], client_name: 'x'.repeat(101) })?.code).toBe(
      'invalid_client_metadata',
    );
    expect(checkRegistration({ redirect_uris: ['https://app.example/cb'], x: 'y'.repeat(9000) })?.code).toBe('invalid_client_metadata');
  });
});
