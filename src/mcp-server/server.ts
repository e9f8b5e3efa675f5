/**
 * The agent's MCP server on `@modelcontextprotocol/sdk` (no hand-made protocol): a `Server` and a
 * stateless `WebStandardStreamableHTTPServerTransport` per request (no `Mcp-Session-Id`, so any
 * request may reach any isolate, and `tools/list` or `tools/call` needs no `initialize` first),
 * answering JSON. The SDK negotiates the revision (2025-11-25 down to 2024-11-05) and checks the
 * JSON-RPC shape, the Accept header and `MCP-Protocol-Version`; the tools come from the catalog.
 * Imported dynamically: evaluated at the first MCP request, not when the isolate starts.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { ServedCall, ServedTool } from './served-tool';

export interface McpServing {
  /** The server's name and version in `initialize`. */
  info: { name: string; title: string; version: string };
  instructions: string;
  /** The caller's tools (read once, at the first request that needs them). */
  catalog(): Promise<Map<string, ServedTool>>;
  /** After each call of a tool that is audited (`ServedTool.audit`). Never throws. */
  called(tool: ServedTool, args: Record<string, unknown>, call: ServedCall, durationMs: number): Promise<void>;
}

/** A `tools/call` with `_meta.progressToken` of a tool that reports progress. */
async function asksForProgress(body: unknown, tools: () => Promise<Map<string, ServedTool>>): Promise<boolean> {
  const message = body as { method?: unknown; params?: { name?: unknown; _meta?: { progressToken?: unknown } } };
  if (message.method !== 'tools/call' || message.params?._meta?.progressToken === undefined) return false;
  const name = message.params.name;
  return typeof name === 'string' && (await tools()).get(name)?.reportsProgress === true;
}

/** Answers one HTTP request of the Streamable HTTP transport; `body` is the parsed JSON-RPC message. */
export async function serveMcp(request: Request, body: unknown, serving: McpServing): Promise<Response> {
  const server = new Server(serving.info, {
    capabilities: { tools: { listChanged: false } },
    instructions: serving.instructions,
    // The Workers-safe validator (ajv compiles code with `new Function`, which workerd refuses).
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  let catalog: Promise<Map<string, ServedTool>> | undefined;
  const tools = () => (catalog ??= serving.catalog());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...(await tools()).values()].map((t) => t.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = (await tools()).get(req.params.name);
    // A tool outside the caller's allowlist is as unknown as one that does not exist.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
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
            sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => undefined);
          };
    const started = Date.now();
    const call = await tool.call(args, extra.signal, progress);
    await sent;
    if (tool.audit) await serving.called(tool, args, call, Date.now() - started);
    return call.result;
  });
  // JSON, unless the request is a call that asked for progress of a tool that reports it: then
  // server-sent events (the progress notifications, then the result), as Streamable HTTP allows.
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
