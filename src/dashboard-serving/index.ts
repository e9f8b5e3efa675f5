/**
 * The owner's dashboard at /app (docs/dashboard.md): its files are Workers static assets (`[assets]` in
 * the wrangler files, binding ASSETS, built by scripts/build-dashboard.ts), served through the
 * worker (`run_worker_first`) so that every answer carries the dashboard's strict CSP and security
 * headers. `/app` and `/app/` are the page; `/app/assets/<name>-<hash>.<ext>` never change (cached
 * for a year); any other path under /app is 404 `not_found`.
 */
import { Hono } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';

/**
 * Everything the page may load comes from this origin; no inline script or style, no frames, no
 * base URL or form target of its own. The API is the same origin (connect-src 'self').
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

const HASHED_ASSET = /^\/app\/assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/;

/** The asset at `assetPath` with the dashboard's headers, or 404 `not_found`. */
async function serveAsset(assets: Fetcher | undefined, requestUrl: string, assetPath: string, method: string): Promise<Response> {
  if (!assets) throw new AppError('not_found', 'The dashboard is not part of this deployment (no ASSETS binding)');
  const url = new URL(assetPath, requestUrl);
  const found = await assets.fetch(new Request(url, { method: method === 'HEAD' ? 'HEAD' : 'GET' }));
  if (found.status !== 200) {
    await found.body?.cancel();
    throw new AppError('not_found', `No dashboard file at ${new URL(requestUrl).pathname}`);
  }
  const headers = new Headers(found.headers);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  headers.set('Cache-Control', HASHED_ASSET.test(assetPath) ? 'public, max-age=31536000, immutable' : 'no-cache');
  return new Response(found.body, { status: 200, headers });
}

/** GET (and HEAD) /app, /app/ and the files under /app/. */
export const dashboardAssets = new Hono<AppBindings>({ strict: false })
  .get('/app', (c) => serveAsset(c.env.ASSETS, c.req.url, '/app/index.html', c.req.method))
  .get('/app/*', (c) => {
    const path = c.req.path;
    if (path === '/app/index.html') throw new AppError('not_found', 'The dashboard is at /app');
    return serveAsset(c.env.ASSETS, c.req.url, path, c.req.method);
  });
