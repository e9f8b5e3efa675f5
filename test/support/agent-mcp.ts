/** Helpers of the tests of the agent's MCP server (POST /agent/{c}/{t}/mcp): its URL, the SDK's client, raw JSON-RPC. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestAgent } from './agent';
import { call } from './http';
import { agentPath } from './login';

/** The MCP route of `agent` on the worker at `baseUrl`. */
export const mcpUrl = (baseUrl: string, agent: TestAgent) => new URL(baseUrl + agentPath(agent.collection, agent.tokenId, '/mcp'));

/** The SDK's client, connected (initialize + initialized) with `credential` as the bearer. */
export async function connectMcp(url: URL, credential: string) {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${credential}` } } });
  const client = new Client({ name: 'agent-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** One raw JSON-RPC POST to the MCP route, with the Accept header Streamable HTTP asks for. */
export function mcpRpc(url: URL, credential: string | undefined, message: unknown, headers: Record<string, string> = {}) {
  return call(url.origin, url.pathname, {
    method: 'POST',
    json: message,
    headers: { accept: 'application/json, text/event-stream', ...headers },
    ...(credential ? { token: credential } : {}),
  });
}

/** The text of a tool result's first content item. */
export const resultText = (result: unknown) =>
  (((result as { content: unknown }).content as { type: string; text: string }[])[0]?.text ?? '') as string;
