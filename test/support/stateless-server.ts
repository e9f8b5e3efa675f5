/**
 * A tool server of the stateless MCP revision 2026-07-28 only (SEP-2575, as src/tool-servers/revisions.ts
 * reads it), on loopback over real HTTP: no `initialize`; every request names its revision in the
 * `MCP-Protocol-Version` header and in `params._meta` (with client info and capabilities), and its
 * method in `Mcp-Method` (tool calls their tool in `Mcp-Name`); `server/discover` lists what it
 * speaks. A request without the revision (an `initialize` included) is refused with HTTP 400 and
 * `UnsupportedProtocolVersionError` (-32022); one whose headers and body disagree, with -32602.
 * Tools `echo` and `add`, as the plain server has them. No session id is ever issued.
 */
import { listen, PLAIN_TOOLS, plainRpc, rpcError, rpcResult, type RpcRequest, sendJson, type TestServer } from './mcp-servers';

export const STATELESS = '2026-07-28';
const META = 'io.modelcontextprotocol/';

export function startStatelessServer(): Promise<TestServer> {
  return listen((req, res, body) => {
    if (req.url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return sendJson(res, 405, rpcError(null, -32600, 'POST only'));
    if (typeof body !== 'object' || body === null) return sendJson(res, 400, rpcError(null, -32700, 'Parse error'));
    const request = body as RpcRequest;
    const id = request.id ?? null;
    const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Record<string, unknown>;
    const meta = (typeof params._meta === 'object' && params._meta !== null ? params._meta : {}) as Record<string, unknown>;
    const header = req.headers['mcp-protocol-version'];
    const version = meta[`${META}protocolVersion`];
    if (header !== STATELESS || version !== STATELESS) {
      const requested = typeof header === 'string' ? header : typeof version === 'string' ? version : null;
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id,
        error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [STATELESS], requested } },
      });
    }
    const client = meta[`${META}clientInfo`] as { name?: unknown } | undefined;
    if (typeof client?.name !== 'string' || typeof meta[`${META}clientCapabilities`] !== 'object') {
      return sendJson(res, 400, rpcError(id, -32602, 'Invalid params: _meta needs clientInfo and clientCapabilities'));
    }
    if (req.headers['mcp-method'] !== request.method) return sendJson(res, 400, rpcError(id, -32602, 'Mcp-Method does not match the body'));
    if (request.method === 'tools/call' && req.headers['mcp-name'] !== params.name) {
      return sendJson(res, 400, rpcError(id, -32602, 'Mcp-Name does not match the body'));
    }
    if (request.method === 'server/discover') {
      return sendJson(
        res,
        200,
        rpcResult(id, {
          supportedVersions: [STATELESS],
          capabilities: { tools: {} },
          serverInfo: { name: 'stateless-test-server', version: '1.0.0' },
        }),
      );
    }
    sendJson(res, 200, plainRpc(request, PLAIN_TOOLS, 1));
  });
}
