/**
 * One loopback tool server for the limit tests, a variant per path (`/<variant>`): a plain
 * JSON-RPC server (no credential, no handshake) whose tools/list serves the variant's tools and
 * whose tools/call answers `ok`; `/oauth` answers every request as an OAuth-protected MCP server
 * does (401 with a `resource_metadata` challenge). Records how many tools/call requests arrived.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SchemaTool = { name: string; description: string; inputSchema: Record<string, unknown> };

export interface SchemaServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** tools/call requests received, per variant. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startSchemaServer(variants: Record<string, SchemaTool[]>): Promise<SchemaServer> {
  const calls = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const variant = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
      if (variant === 'oauth') {
        res.writeHead(401, {
          'www-authenticate': 'Bearer resource_metadata="https://auth.tools.example/.well-known/oauth-protected-resource"',
          'content-type': 'application/json',
        });
        res.end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      const tools = variants[variant];
      let body: { id?: unknown; method?: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        /* answered below */
      }
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, result }));
      };
      if (!tools) {
        res.writeHead(404).end();
      } else if (body.method === 'tools/list') {
        reply({ tools });
      } else if (body.method === 'tools/call') {
        calls.set(variant, (calls.get(variant) ?? 0) + 1);
        reply({ content: [{ type: 'text', text: 'ok' }] });
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
