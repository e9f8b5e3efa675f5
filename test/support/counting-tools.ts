/**
 * A plain JSON-RPC tool server with `echo` (text) that counts what a reply makes of it: calls
 * received, calls in flight and their peak. Each call can take `delayMs` (so calls overlap and the
 * peak shows how many run at once) and answer `resultChars` characters (a large result).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingToolsOptions {
  /** Each call answers after this long (default 0). */
  delayMs?: number;
  /** Each answer is padded to this many characters (default: `echo: <text>`). */
  resultChars?: number;
}

export async function startCountingTools(options: CountingToolsOptions = {}) {
  const state = { calls: 0, inFlight: 0, peak: 0 };
  const tools = [
    {
      name: 'echo',
      description: 'Echoes the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: any };
      const send = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (body.method === 'tools/list') return send({ jsonrpc: '2.0', id: body.id, result: { tools } });
      if (body.method !== 'tools/call')
        return send({ jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } });
      state.calls++;
      state.inFlight++;
      state.peak = Math.max(state.peak, state.inFlight);
      setTimeout(() => {
        state.inFlight--;
        const echo = `echo: ${body.params?.arguments?.text}`;
        const text = options.resultChars ? echo.padEnd(options.resultChars, '.') : echo;
        send({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text }] } });
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    /** Counts from zero again (between tests sharing the server). */
    reset() {
      state.calls = 0;
      state.peak = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
