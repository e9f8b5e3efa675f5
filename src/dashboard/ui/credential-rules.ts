/**
 * The rules of the tool-server credential form (./credential.tsx), apart from its fields: the
 * auth kinds, what is missing in words, and the auth input the route takes.
 */
import type { ToolServerAuthInput } from '../../client';

export const AUTH_TYPES = ['none', 'bearer', 'header', 'oauth'] as const satisfies readonly ToolServerAuthInput['type'][];
export type AuthType = (typeof AUTH_TYPES)[number];

/** A scope as the gateway takes it: printable, no space, quote or backslash. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

export interface CredentialForm {
  type: AuthType;
  headerName: string;
  /** The token or header value; for OAuth, the client secret (optional). */
  value: string;
  /** OAuth: scopes separated by spaces or commas (empty: the server's own choice). */
  scopes: string;
  /** OAuth: a client registered at the authorization server beforehand (empty: none). */
  clientId: string;
}

export const NO_CREDENTIAL: CredentialForm = { type: 'none', headerName: 'x-api-key', value: '', scopes: '', clientId: '' };

const scopeList = (text: string) => text.split(/[\s,]+/).filter((s) => s !== '');

export type Problems = { headerName?: string | undefined; value?: string | undefined; scopes?: string | undefined };

/** What is missing, in words (undefined: nothing). */
export function credentialProblems(c: CredentialForm): Problems {
  if (c.type === 'oauth') {
    const bad = scopeList(c.scopes).find((s) => !SCOPE.test(s));
    return {
      scopes: bad === undefined ? undefined : `"${bad}" is not a scope: printable characters, no quote or backslash.`,
      value: c.value !== '' && c.clientId.trim() === '' ? 'A client secret goes with a client ID: enter both, or neither.' : undefined,
    };
  }
  return {
    headerName: c.type === 'header' && c.headerName.trim() === '' ? 'Enter the header name.' : undefined,
    value: c.type !== 'none' && c.value === '' ? 'Enter the credential value.' : undefined,
  };
}

/** Whether the form can be sent as it is. */
export function credentialReady(c: CredentialForm): boolean {
  return Object.values(credentialProblems(c)).every((p) => p === undefined);
}

export function authOf(c: CredentialForm): ToolServerAuthInput {
  if (c.type === 'bearer') return { type: 'bearer', value: c.value };
  if (c.type === 'header') return { type: 'header', headerName: c.headerName.trim(), value: c.value };
  if (c.type === 'oauth') {
    const scopes = scopeList(c.scopes);
    const clientId = c.clientId.trim();
    return {
      type: 'oauth',
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(clientId ? { clientId } : {}),
      ...(clientId && c.value ? { clientSecret: c.value } : {}),
    };
  }
  return { type: 'none' };
}
