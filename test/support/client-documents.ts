/**
 * OAuth client metadata documents for the CIMD tests: one loopback HTTP server that answers each
 * path as the test set it (a document, a redirect, HTML, a slow or a huge answer), reached by the
 * worker as `https://docs.tools.example/...` (test/support/tool-routing.ts), and counts the GETs.
 */
import type { ServerResponse } from 'node:http';
import { listen, type Listener } from './loopback';

export const DOCUMENT_HOST = 'docs.tools.example';

/** How one path answers. */
export type DocumentAnswer = (res: ServerResponse) => void | Promise<void>;

export interface DocumentServer {
  listener: Listener;
  /** A fresh path on the server: its `client_id` URL, and the way to change its answer later. */
  path(answer?: DocumentAnswer): { clientId: string; set(answer: DocumentAnswer): void; hits(): number };
  close(): Promise<void>;
}

/** A JSON document with the given caching header (none by default). */
export function json(body: unknown, headers: Record<string, string> = {}): DocumentAnswer {
  return (res) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };
}

/** The document a public MCP client would publish at `clientId`. */
export function documentFor(clientId: string, redirectUris: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_id: clientId, client_name: 'CIMD test app', redirect_uris: redirectUris, token_endpoint_auth_method: 'none', ...extra };
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const answers = new Map<string, DocumentAnswer>();
  const listener = await listen(async (req, res) => {
    const answer = answers.get(req.path);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such document');
      return;
    }
    await answer(res);
  });
  return {
    listener,
    path(answer) {
      const path = `/clients/${crypto.randomUUID()}/client.json`;
      if (answer) answers.set(path, answer);
      return {
        clientId: `https://${DOCUMENT_HOST}${path}`,
        set: (next) => answers.set(path, next),
        hits: () => listener.requests.filter((r) => r.path === path).length,
      };
    },
    close: () => listener.close(),
  };
}
