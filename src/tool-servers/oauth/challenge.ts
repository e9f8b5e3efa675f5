/**
 * A `WWW-Authenticate: Bearer ...` challenge as OAuth resource servers send it (RFC 6750, RFC 9728):
 * `resource_metadata`, `scope` and `error` are what the MCP client flow reads.
 */
export interface BearerChallenge {
  resourceMetadata?: string;
  scope?: string[];
  error?: string;
}

const PARAM = /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;

/** The Bearer challenge's parameters, or undefined when the header names no Bearer scheme. */
export function parseBearerChallenge(header: string | null): BearerChallenge | undefined {
  if (header === null || header.length > 8_192) return undefined;
  const at = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at < 0) return undefined;
  const rest = header.slice(at).replace(/^[\s,]*Bearer/i, '');
  const out: BearerChallenge = {};
  for (const match of rest.matchAll(PARAM)) {
    const name = (match[1] ?? '').toLowerCase();
    const value = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
    if (name === 'resource_metadata' && out.resourceMetadata === undefined) out.resourceMetadata = value;
    else if (name === 'scope' && out.scope === undefined) out.scope = value.split(' ').filter((s) => s !== '');
    else if (name === 'error' && out.error === undefined) out.error = value;
  }
  return out;
}
