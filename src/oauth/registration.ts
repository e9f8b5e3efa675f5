import { z } from '@hono/zod-openapi';
import type { ClientRegistrationCallbackResult } from '@cloudflare/workers-oauth-provider';

/** Bounds of a dynamic client registration (RFC 7591), checked before the library stores anything. */
export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;
export const MAX_CLIENT_NAME = 100;
export const MAX_CONTACTS = 5;
export const MAX_REGISTRATION_FIELDS = 30;
export const MAX_REGISTRATION_BYTES = 8192;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const NO_CONTROL_CHARS = /^[^\p{Cc}\p{Cf}]*$/u;

/** `https`, or `http` on a loopback host (RFC 8252 §7.3, as MCP and OAuth 2.1 ask); no fragment, no user info. */
export function isAllowedRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash !== '' || value.includes('#') || url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** A client's self-asserted name: bounded, no control or format characters (they could disguise it on the page). */
export const ClientNameSchema = z
  .string()
  .min(1)
  .max(MAX_CLIENT_NAME)
  .regex(NO_CONTROL_CHARS, 'must not hold control or format characters');

const HttpsUri = z
  .string()
  .max(MAX_URI_LENGTH)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https URL');

/** What a registration may say; every field bounded. Unknown fields are kept by count and size only. */
export const ClientRegistrationSchema = z
  .object({
    redirect_uris: z
      .array(z.string().max(MAX_URI_LENGTH).refine(isAllowedRedirectUri, 'must be https, or http on 127.0.0.1, [::1] or localhost'))
      .min(1)
      .max(MAX_REDIRECT_URIS),
    client_name: ClientNameSchema.optional(),
    client_uri: HttpsUri.optional(),
    logo_uri: HttpsUri.optional(),
    policy_uri: HttpsUri.optional(),
    tos_uri: HttpsUri.optional(),
    jwks_uri: HttpsUri.optional(),
    contacts: z.array(z.string().max(254)).max(MAX_CONTACTS).optional(),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token']))
      .max(2)
      .optional(),
    response_types: z.array(z.literal('code')).max(1).optional(),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
    scope: z.string().max(200).optional(),
    software_id: z.string().max(200).optional(),
    software_version: z.string().max(200).optional(),
  })
  .catchall(z.unknown())
  .openapi('OAuthClientRegistration');

/**
 * The library's `clientRegistrationCallback`: undefined lets the registration through; otherwise
 * RFC 7591 §3.2.2's error, `invalid_redirect_uri` when a redirect URI is at fault.
 */
export function checkRegistration(metadata: Record<string, unknown>): ClientRegistrationCallbackResult | undefined {
  if (Object.keys(metadata).length > MAX_REGISTRATION_FIELDS || JSON.stringify(metadata).length > MAX_REGISTRATION_BYTES) {
    return {
      code: 'invalid_client_metadata',
      description: `At most ${MAX_REGISTRATION_FIELDS} fields and ${MAX_REGISTRATION_BYTES} bytes of metadata`,
    };
  }
  const parsed = ClientRegistrationSchema.safeParse(metadata);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? 'metadata');
  const where = issue?.path.map(String).join('.') ?? field;
  return {
    code: field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    description: `${where}: ${issue?.message ?? 'invalid'}`,
  };
}
