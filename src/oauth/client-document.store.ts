/**
 * Resolving a Client ID Metadata Document: from the KV cache, else one bounded GET of its URL
 * under the outbound policy, checked (client-document.ts), then cached as its `Cache-Control`
 * allows for at most 24 hours. A document that fails is never cached: the next request fetches
 * it again.
 *
 * KV: `cimd:<url>` holds `{ clientId, clientName?, redirectUris }` of a document that passed,
 * for the lifetime its answer allowed (`s-maxage`, else `max-age`, less `Age`; at most 24 h;
 * none under KV's 60 s minimum, nor with `no-store`, `no-cache` or `private`).
 */
import { z } from '@hono/zod-openapi';
import { fetchBounded } from '../net/fetch-bounded';
import type { OutboundOptions } from '../net/outbound-policy';
import {
  checkDocumentUrl,
  DOCUMENT_TIMEOUT_MS,
  MAX_DOCUMENT_BYTES,
  parseDocument,
  type ClientDocument,
  type DocumentProblem,
} from './client-document';

export const DOCUMENT_CACHE_PREFIX = 'cimd:';
/** A document is cached for at most a day, whatever its answer allows. */
export const MAX_DOCUMENT_CACHE_SECONDS = 24 * 3600;
/** KV's shortest expiration: a shorter lifetime is not cached at all. */
const KV_MIN_TTL_SECONDS = 60;

export type ResolvedDocument = { ok: true; document: ClientDocument } | { ok: false; problem: DocumentProblem };

const CachedSchema = z.object({
  clientId: z.string(),
  clientName: z.string().optional(),
  redirectUris: z.array(z.string()).min(1),
});

/** How long an answer may be kept, in seconds, from its caching headers; undefined: not at all. */
export function documentCacheSeconds(headers: Headers): number | undefined {
  const cacheControl = headers.get('cache-control');
  if (cacheControl === null || /(?:^|,)\s*(?:no-store|no-cache|private)\b/i.test(cacheControl)) return undefined;
  const directive = /(?:^|,)\s*s-maxage\s*=\s*"?(\d+)/i.exec(cacheControl) ?? /(?:^|,)\s*max-age\s*=\s*"?(\d+)/i.exec(cacheControl);
  if (!directive) return undefined;
  const age = Number(headers.get('age') ?? '0');
  const seconds = Math.min(Number(directive[1]) - (Number.isFinite(age) && age > 0 ? age : 0), MAX_DOCUMENT_CACHE_SECONDS);
  return seconds >= KV_MIN_TTL_SECONDS ? Math.floor(seconds) : undefined;
}

async function cached(kv: KVNamespace, url: string): Promise<ClientDocument | undefined> {
  const stored = CachedSchema.safeParse(await kv.get(DOCUMENT_CACHE_PREFIX + url, 'json'));
  if (!stored.success || stored.data.clientId !== url) return undefined;
  const { clientName, ...rest } = stored.data;
  return { ...rest, ...(clientName === undefined ? {} : { clientName }) };
}

/**
 * The document `clientId` names, from the cache or its URL. The internal reason of a refusal goes
 * to the log with the document's host (a URL anyone may send is no secret).
 */
export async function resolveClientDocument(kv: KVNamespace, clientId: string, outbound: OutboundOptions): Promise<ResolvedDocument> {
  const refused = (problem: DocumentProblem): ResolvedDocument => {
    const host = URL.canParse(clientId) ? new URL(clientId).host : '';
    console.warn(JSON.stringify({ msg: 'oauth client document refused', host, reason: problem.kind }));
    return { ok: false, problem };
  };
  const url = checkDocumentUrl(clientId, outbound);
  if (!url.ok) return refused(url.problem);
  const hit = await cached(kv, clientId);
  if (hit) return { ok: true, document: hit };
  const fetched = await fetchBounded(clientId, {
    timeoutMs: DOCUMENT_TIMEOUT_MS,
    maxBytes: MAX_DOCUMENT_BYTES,
    headers: { Accept: 'application/json', 'User-Agent': 'agent-gateway (OAuth client metadata)' },
  });
  if (!fetched.ok) {
    if (fetched.reason === 'redirect' || fetched.reason === 'status') return refused({ kind: fetched.reason, status: fetched.status ?? 0 });
    return refused({ kind: fetched.reason });
  }
  const parsed = parseDocument(clientId, fetched.headers.get('content-type') ?? '', fetched.bytes);
  if ('kind' in parsed) return refused(parsed);
  const seconds = documentCacheSeconds(fetched.headers);
  if (seconds !== undefined) {
    // Best effort: a failed write costs the next request a fetch, nothing else.
    await kv.put(DOCUMENT_CACHE_PREFIX + clientId, JSON.stringify(parsed), { expirationTtl: seconds }).catch((err: unknown) => {
      console.warn(JSON.stringify({ msg: 'oauth client document not cached', error: String(err) }));
    });
  }
  return { ok: true, document: parsed };
}
