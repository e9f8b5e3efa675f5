/**
 * The agent's MCP server on the MCP SDK's v2 server package (`@modelcontextprotocol/server`; no
 * hand-made protocol), stateless and serving both eras from one server definition:
 * - 2026-07-28 requests (each carries its protocol version, client info and capabilities in
 *   `_meta`; no `initialize`): the SDK's `createMcpHandler`, which answers `server/discover`,
 *   checks `Mcp-Method`/`Mcp-Name` against the body and puts `ttlMs` on list results;
 * - 2025-11-25 and 2025-06-18 clients (`initialize` negotiates the revision, or none at all):
 *   a fresh server on a stateless `WebStandardStreamableHTTPServerTransport` per request (no
 *   `Mcp-Session-Id`, so any request may reach any isolate), answering JSON.
 * The SDK tells the two apart (`isLegacyRequest`, its own routing rule). Either era answers
 * JSON, except a call that asked for progress of a tool that reports it: server-sent events.
 * On workerd the SDK validates with `@cfworker/json-schema` (its workerd build; Ajv compiles code
 * with `new Function`, which workerd refuses). Imported dynamically: evaluated at the first MCP
 * request, not when the isolate starts.
 */
import {
  type CallToolResult,
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type AgentTool, internalFailure, type ToolOutcome } from '../tools/tool';
import { isObject } from '../tool-servers/types';

export interface McpServing {
  /** The server's name and version in `initialize` and `server/discover`. */
  info: { name: string; title: string; version: string };
  instructions: string;
  /** The caller's tools (read once, at the first request that needs them). */
  catalog(): Promise<Map<string, AgentTool>>;
  /** After each call of a tool that is audited (`AgentTool.audited`). Never throws. */
  called(tool: AgentTool, args: Record<string, unknown>, outcome: ToolOutcome, durationMs: number): Promise<void>;
}

/** A tool as `tools/list` lists it: MCP's fields, title, annotations and output schema kept. */
function definition(tool: AgentTool): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** An outcome as MCP's tool result: a failure is a result with `isError`, never a JSON-RPC error. */
function callResult(outcome: ToolOutcome): CallToolResult {
  const { content, structuredContent, isError } = outcome;
  return {
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError ? { isError: true } : {}),
  } as CallToolResult;
}

/** A `tools/call` with `_meta.progressToken` of a tool that reports progress. */
async function asksForProgress(body: unknown, tools: () => Promise<Map<string, AgentTool>>): Promise<boolean> {
  const message = body as { method?: unknown; params?: { name?: unknown; _meta?: { progressToken?: unknown } } };
  if (message.method !== 'tools/call' || message.params?._meta?.progressToken === undefined) return false;
  const name = message.params.name;
  return typeof name === 'string' && (await tools()).get(name)?.reportsProgress === true;
}

/** One server for one request, whichever era: the catalog's tools, listed and called. */
function agentServer(serving: McpServing, tools: () => Promise<Map<string, AgentTool>>): Server {
  const server = new Server(serving.info, {
    capabilities: { tools: { listChanged: false } },
    instructions: serving.instructions,
  });
  server.setRequestHandler('tools/list', async () => ({ tools: [...(await tools()).values()].map(definition) }));
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const tool = (await tools()).get(req.params.name);
    // A tool outside the caller's allowlist is as unknown as one that does not exist.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    const args = req.params.arguments ?? {};
    const token = req.params._meta?.progressToken;
    let step = 0;
    // notifications/progress on the request's own stream, in order (each waits for the one before).
    let sent: Promise<void> = Promise.resolve();
    const progress =
      token === undefined || !tool.reportsProgress
        ? undefined
        : (message: string) => {
            step += 1;
            const params = { progressToken: token, progress: step, message };
            sent = sent.then(() => ctx.mcpReq.notify({ method: 'notifications/progress', params })).catch(() => undefined);
          };
    const started = Date.now();
    const outcome = await tool.call(args, { signal: ctx.mcpReq.signal, ...(progress ? { progress } : {}) }).catch(internalFailure);
    await sent;
    if (tool.audited) await serving.called(tool, args, outcome, Date.now() - started);
    return callResult(outcome);
  });
  return server;
}

/**
 * What is wrong with a `tools/call` request's `name` or `arguments`, in a few words, else
 * undefined. Checked before the SDK, whose own check answers invalid params with its whole
 * validation report as the message.
 */
function badCallParams(message: Record<string, unknown>): string | undefined {
  const params = message.params;
  if (!isObject(params)) return 'params must be an object with the tool name';
  if (typeof params.name !== 'string') return 'params.name must be a string: the tool name';
  if (params.arguments !== undefined && !isObject(params.arguments)) return 'params.arguments must be an object when given';
  return undefined;
}

/** A `tools/call` request whose params are malformed: JSON-RPC invalid params (-32602), a short message. */
function invalidCallParams(body: unknown): Response | undefined {
  if (!isObject(body) || body.method !== 'tools/call') return undefined;
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const problem = badCallParams(body);
  if (problem === undefined) return undefined;
  return Response.json({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${problem}` } });
}

/** Answers one HTTP request of the Streamable HTTP transport; `body` is the parsed JSON-RPC message. */
export async function serveMcp(request: Request, body: unknown, serving: McpServing): Promise<Response> {
  const invalid = invalidCallParams(body);
  if (invalid) return invalid;
  let catalog: Promise<Map<string, AgentTool>> | undefined;
  const tools = () => (catalog ??= serving.catalog());
  if (!(await isLegacyRequest(request, body))) {
    // 2026-07-28: one exchange per request; JSON unless the call sends progress first ('auto').
    const modern = createMcpHandler(() => agentServer(serving, tools), { legacy: 'reject', responseMode: 'auto' });
    return modern.fetch(request, { parsedBody: body });
  }
  const server = agentServer(serving, tools);
  const streams = await asksForProgress(body, tools);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams });
  await server.connect(transport);
  if (streams) {
    // The stream ends when the result is sent (the transport closes it); nothing else to release.
    return transport.handleRequest(request, { parsedBody: body });
  }
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    // JSON answers are whole once handleRequest resolved: nothing is left to send.
    await server.close();
  }
}
