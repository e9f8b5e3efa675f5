import type { MiddlewareHandler } from 'hono';
import type { AppBindings } from '../types';
import { subjectOfCredential } from './resource';

/**
 * The longest client id, in UTF-8 bytes, the token endpoint and the authorize page take. The
 * library keeps a client under `client:<id>`, and a KV key holds at most 512 bytes: an id past
 * that made KV throw (a 500). A registered client's id is 16 characters; a metadata document's URL
 * is at most 400 characters (client-document.ts).
 */
export const MAX_CLIENT_ID_BYTES = 400;

const FORM_TYPE = 'application/x-www-form-urlencoded';
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const encoder = new TextEncoder();

export const clientIdFits = (id: string) => encoder.encode(id).length <= MAX_CLIENT_ID_BYTES;

/** An OAuth error answer (RFC 6749 §5.2), never cached. */
export const oauthErrorResponse = (status: 400 | 401, error: string, description: string) =>
  Response.json({ error, error_description: description }, { status, headers: { 'Cache-Control': 'no-store' } });

/**
 * The client id of a `Basic` Authorization header, decoded as the library decodes it: undefined
 * for no Basic header, null for a malformed one.
 */
export function basicClientId(header: string | undefined): string | null | undefined {
  const scheme = /^basic(?:[ \t]|$)/i;
  if (!header || !scheme.test(header)) return undefined;
  const match = /^basic[ \t]+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  try {
    const credentials = atob(match[1]);
    const end = credentials.indexOf(':');
    if (end === -1) return null;
    return decodeURIComponent(credentials.slice(0, end).replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Before the token endpoint's schema and the library read a request: what they cannot take is
 * answered here, in the OAuth shape, rather than thrown as a 500. A multipart body (OAuth's token
 * requests are form-encoded; one without a boundary made the body parser throw), a form in
 * another charset than UTF-8 or whose bytes are not UTF-8, and a client id longer than
 * `MAX_CLIENT_ID_BYTES` (in the form or in Basic credentials).
 */
export const tokenRequestGuard: MiddlewareHandler<AppBindings> = async (c, next) => {
  if (c.req.method !== 'POST') return next();
  const contentType = c.req.header('content-type') ?? '';
  const [type = '', ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type.startsWith('multipart/')) {
    return oauthErrorResponse(400, 'invalid_request', `Send the token request as ${FORM_TYPE}, not ${type}`);
  }
  if (type !== FORM_TYPE) return next(); // the route's own 415
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"|"$/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return oauthErrorResponse(400, 'invalid_request', 'The form must be UTF-8 (charset=utf-8)');
  }
  let text: string;
  try {
    text = UTF8.decode(await c.req.arrayBuffer());
  } catch {
    return oauthErrorResponse(400, 'invalid_request', 'The form is not UTF-8');
  }
  const form = new URLSearchParams(text);
  const basic = basicClientId(c.req.header('authorization'));
  if (basic === null) return oauthErrorResponse(401, 'invalid_client', 'Client authentication failed: invalid Basic credentials');
  if (![...form.getAll('client_id'), ...(basic === undefined ? [] : [basic])].every(clientIdFits)) {
    return oauthErrorResponse(401, 'invalid_client', `Unknown client: a client id is at most ${MAX_CLIENT_ID_BYTES} bytes`);
  }
  return next();
};

/** A code or token as the library makes them: `{userId}:{grantId}:{secret}`, our `userId`, its 16-character grant id. */
const CREDENTIAL = /^[^:]+:[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,256}$/;

/**
 * Whether a code, refresh token or token to revoke can be one of ours: a made-up one is refused
 * before the library looks anything up (its KV keys are built from the parts, and an unknown
 * prefix names no agent's resource).
 */
export function credentialShapeOk(credential: string): boolean {
  return CREDENTIAL.test(credential) && subjectOfCredential(credential) !== null;
}
