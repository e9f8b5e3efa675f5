/**
 * Client ID Metadata Documents: an MCP client whose `client_id` is an https URL publishes its
 * metadata (name, redirect URIs) at that URL instead of registering. This file holds the rules
 * for the URL and for the document; client-document.store.ts fetches and caches it.
 */
import type { ClientInfo } from '@cloudflare/workers-oauth-provider';
import { z } from '@hono/zod-openapi';
import type { OutboundOptions } from '../net/outbound-policy';
import { canonicalToolServerUrl } from '../tool-servers/url';
import { ClientNameSchema, isAllowedRedirectUri, MAX_REDIRECT_URIS, MAX_URI_LENGTH } from './registration';

/** Bounds of one fetch of a document. */
export const DOCUMENT_TIMEOUT_MS = 5000;
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** A document URL's length at most: its KV cache key (`cimd:` + URL) stays under KV's 512 bytes. */
export const MAX_DOCUMENT_URL_LENGTH = 400;

/** A document that passed every rule: what the consent page shows and the library needs. */
export interface ClientDocument {
  clientId: string;
  clientName?: string;
  redirectUris: string[];
}

/** Why a document cannot be used; each maps to words on the authorize page (`documentProblemText`). */
export type DocumentProblem =
  | { kind: 'client_id_refused'; detail: string }
  | { kind: 'timeout' }
  | { kind: 'unreachable' }
  | { kind: 'redirect'; status: number }
  | { kind: 'status'; status: number }
  | { kind: 'too_large' }
  | { kind: 'not_json'; contentType: string }
  | { kind: 'invalid_json' }
  | { kind: 'client_id_mismatch' }
  | { kind: 'invalid_metadata'; detail: string };

/**
 * True when a `client_id` is URL-shaped, so it names a metadata document (or is refused as one):
 * the ids dynamic registration hands out are letters and digits, never a scheme.
 */
export function isDocumentClientId(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(clientId);
}

/**
 * The document URL's rules, before any connection: the outbound policy of tool servers (https, a
 * public host name, no IP literal, no internal name or port; http on loopback in the local stack
 * only), written exactly in its canonical form (the document's `client_id` is compared to it as a
 * string), with a path of its own (not `/`), no fragment and no credentials.
 */
export function checkDocumentUrl(clientId: string, outbound: OutboundOptions): { ok: true } | { ok: false; problem: DocumentProblem } {
  const refuse = (detail: string) => ({ ok: false as const, problem: { kind: 'client_id_refused' as const, detail } });
  if (clientId.length > MAX_DOCUMENT_URL_LENGTH) return refuse(`it is longer than ${MAX_DOCUMENT_URL_LENGTH} characters`);
  const checked = canonicalToolServerUrl(clientId, outbound);
  if (!checked.ok) return refuse(checked.reason === 'not_https' ? 'it must be an https URL' : checked.message);
  if (checked.url !== clientId) return refuse(`it must be written in its canonical form (${checked.url})`);
  if (new URL(clientId).pathname === '/') return refuse('it must have a path (the document is not the site itself)');
  return { ok: true };
}

/** Schemes a listed redirect URI may never have, even beside a usable one. */
const DANGEROUS_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * A listed redirect URI: an absolute URI without fragment or credentials. A document may list
 * others (an app's own scheme) beside usable ones; a request may use only `https` or loopback
 * `http` (the library holds every authorization request to that).
 */
function isListableRedirectUri(value: string): boolean {
  if (!URL.canParse(value) || value.includes('#')) return false;
  const url = new URL(value);
  return url.username === '' && url.password === '' && !DANGEROUS_SCHEMES.has(url.protocol);
}

const DocumentSchema = z
  .object({
    client_id: z.string(),
    redirect_uris: z
      .array(z.string().max(MAX_URI_LENGTH).refine(isListableRedirectUri, 'must be an absolute URI without fragment or credentials'))
      .min(1)
      .max(MAX_REDIRECT_URIS)
      .refine((uris) => uris.some(isAllowedRedirectUri), 'must list an https URI, or http on 127.0.0.1, [::1] or localhost'),
    client_name: ClientNameSchema.optional(),
    token_endpoint_auth_method: z.string().max(100).optional(),
    token_endpoint_auth_methods_supported: z.array(z.string().max(100)).max(10).optional(),
    grant_types: z.array(z.string().max(200)).max(10).optional(),
    response_types: z.array(z.string().max(100)).max(10).optional(),
  })
  .catchall(z.unknown());

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;

/** The document's rules: JSON, its `client_id` its own URL, redirect URIs, a public client. */
export function parseDocument(url: string, contentType: string, bytes: Uint8Array): ClientDocument | DocumentProblem {
  if (!JSON_TYPE.test(contentType)) return { kind: 'not_json', contentType: contentType.slice(0, 100) || 'none' };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return { kind: 'invalid_json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'invalid_json' };
  if ((value as { client_id?: unknown }).client_id !== url) return { kind: 'client_id_mismatch' };
  const parsed = DocumentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid_metadata', detail: `${issue?.path.map(String).join('.') || 'document'}: ${issue?.message ?? 'invalid'}` };
  }
  const doc = parsed.data;
  const invalid = (detail: string): DocumentProblem => ({ kind: 'invalid_metadata', detail });
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) return invalid('a metadata document must not hold a client secret');
  const method = doc.token_endpoint_auth_method;
  const methods = doc.token_endpoint_auth_methods_supported;
  const isPublic = (method === undefined && methods === undefined) || method === 'none' || methods?.includes('none') === true;
  if (!isPublic) return invalid('token_endpoint_auth_method: only public clients (none, with PKCE) are accepted');
  if (doc.grant_types && !doc.grant_types.includes('authorization_code')) return invalid('grant_types: must include authorization_code');
  if (doc.response_types && !doc.response_types.includes('code')) return invalid('response_types: must include code');
  return { clientId: url, redirectUris: doc.redirect_uris, ...(doc.client_name === undefined ? {} : { clientName: doc.client_name }) };
}

const LOOPBACK_REDIRECT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether the document lists `redirectUri`: exactly, or (RFC 8252 section 7.3, native apps) as
 * loopback `http` with any port, the rest exact. The library applies the same rule to the request;
 * this is the check at approval, against the document as it is then.
 */
export function listsRedirectUri(doc: ClientDocument, redirectUri: string): boolean {
  if (doc.redirectUris.includes(redirectUri)) return true;
  const loopback = (value: string) => {
    if (!URL.canParse(value)) return undefined;
    const url = new URL(value);
    return url.protocol === 'http:' && LOOPBACK_REDIRECT_HOSTS.has(url.hostname)
      ? `${url.hostname}${url.pathname}${url.search}`
      : undefined;
  };
  const wanted = loopback(redirectUri);
  return wanted !== undefined && doc.redirectUris.some((uri) => loopback(uri) === wanted);
}

/** The problem in words, for the authorize page and the approval's error. */
export function documentProblemText(url: string, problem: DocumentProblem): string {
  const doc = `The app's metadata document at ${url}`;
  switch (problem.kind) {
    case 'client_id_refused':
      return `The client_id ${url} cannot name a metadata document: ${problem.detail}.`;
    case 'timeout':
      return `${doc} did not arrive within ${DOCUMENT_TIMEOUT_MS / 1000} s.`;
    case 'unreachable':
      return `${doc} could not be fetched (no connection).`;
    case 'redirect':
      return `${doc} answered with a redirect (HTTP ${problem.status}); redirects are not followed.`;
    case 'status':
      return `${doc} answered HTTP ${problem.status} instead of the document.`;
    case 'too_large':
      return `${doc} is larger than ${MAX_DOCUMENT_BYTES / 1024} KiB.`;
    case 'not_json':
      return `${doc} is not JSON (Content-Type: ${problem.contentType}).`;
    case 'invalid_json':
      return `${doc} is not a valid JSON object.`;
    case 'client_id_mismatch':
      return `${doc} names another client_id than its own URL.`;
    case 'invalid_metadata':
      return `${doc} is not valid: ${problem.detail}.`;
  }
}

/** The client as the library keeps one: public (no secret), PKCE, the code and refresh grants. */
export function libraryClientOf(doc: ClientDocument): ClientInfo {
  return {
    clientId: doc.clientId,
    redirectUris: doc.redirectUris,
    ...(doc.clientName === undefined ? {} : { clientName: doc.clientName }),
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
  };
}
