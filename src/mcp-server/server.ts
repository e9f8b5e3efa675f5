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
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { type AgentTool, internalFailure, type ToolOutcome } from '../tools/tool';

export interface McpServing {
  /** The server's name and version in `initialize`. */
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

/** Answers one HTTP request of the Streamable HTTP transport; `body` is the parsed JSON-RPC message. */
export async function serveMcp(request: Request, body: unknown, serving: McpServing): Promise<Response> {
  const server = new Server(serving.info, {
    capabilities: { tools: { listChanged: false } },
    instructions: serving.instructions,
    // The Workers-safe validator (ajv compiles code with `new Function`, which workerd refuses).
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  let catalog: Promise<Map<string, AgentTool>> | undefined;
  const tools = () => (catalog ??= serving.catalog());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...(await tools()).values()].map(definition) }));
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
    const outcome = await tool.call(args, { signal: extra.signal, ...(progress ? { progress } : {}) }).catch(internalFailure);
    await sent;
    if (tool.audited) await serving.called(tool, args, outcome, Date.now() - started);
    return callResult(outcome);
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
