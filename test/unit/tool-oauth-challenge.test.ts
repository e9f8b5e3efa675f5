import { describe, expect, it } from 'vitest';
import { parseBearerChallenge } from '../../src/tool-servers/oauth/challenge';

describe("a tool server's Bearer challenge (WWW-Authenticate)", () => {
  it('reads resource_metadata, scope and error, quoted or not, in any order and case', () => {
    expect(
      parseBearerChallenge(
        'Bearer error="insufficient_scope", scope="read admin", resource_metadata="https://t.example/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: ['read', 'admin'],
      resourceMetadata: 'https://t.example/.well-known/oauth-protected-resource/mcp',
    });
    expect(parseBearerChallenge('bearer scope=read')).toEqual({ scope: ['read'] });
    expect(parseBearerChallenge('Bearer')).toEqual({});
  });

  it('finds Bearer after another scheme, unescapes quoted pairs, keeps the first of a repeated parameter', () => {
    expect(parseBearerChallenge('Basic realm="x", Bearer scope="a \\"b\\"", scope="c"')).toEqual({ scope: ['a', '"b"'] });
  });

  it('is undefined without a Bearer scheme, or for a header past 8 KiB', () => {
    expect(parseBearerChallenge(null)).toBeUndefined();
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(`Bearer scope="${'a'.repeat(9_000)}"`)).toBeUndefined();
  });
});
