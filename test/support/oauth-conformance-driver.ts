/**
 * The "client" the official MCP conformance suite runs for its client auth scenarios: the gateway,
 * driven through its public API. The suite appends the scenario server's URL; the gateway's URL,
 * an owner's token and the agent's path come from the environment (AGW_URL, AGW_TOKEN, AGW_AGENT).
 * It registers the server with `auth: { type: "oauth" }` (the scenario's pre-registered client
 * when it gives one), follows the authorize URL as a browser would (redirects back to the
 * gateway's callback), then lists and calls the first tool, following one step-up URL at most.
 */
const serverUrl = process.argv.at(-1) ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
const gateway = process.env.AGW_URL ?? '';
const agentPath = process.env.AGW_AGENT ?? '';
const headers = { authorization: `Bearer ${process.env.AGW_TOKEN ?? ''}`, 'content-type': 'application/json' };

async function api(method: string, rest: string, body?: unknown) {
  const res = await fetch(`${gateway}${agentPath}${rest}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, any>;
  console.log(`${method} ${rest} -> ${res.status}${res.ok ? '' : ` ${JSON.stringify(json.error ?? json)}`}`);
  return { status: res.status, json };
}

/** Follows the authorize URL through the authorization server's redirects to the gateway's callback page. */
async function browse(url: string): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(next, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      next = new URL(location, next).toString();
      continue;
    }
    console.log(`callback page: ${res.status}`);
    return;
  }
}

const auth = {
  type: 'oauth',
  ...(context.client_id ? { clientId: context.client_id } : {}),
  ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
};
const added = await api('POST', '/mcp/connection', { url: serverUrl, auth });
if (added.status !== 200) process.exit(1);
await browse(added.json.authorizeUrl);
const id = added.json.id as string;
const live = await api('GET', `/mcp/connection/${id}/tools`);
const tool = (live.json.tools as { name: string }[] | undefined)?.[0];
if (tool) {
  let called = await api('POST', `/mcp/connection/${id}/tools/call`, { name: tool.name, arguments: {} });
  if (called.status === 424 && called.json.error?.details?.authorizeUrl) {
    await browse(called.json.error.details.authorizeUrl);
    called = await api('POST', `/mcp/connection/${id}/tools/call`, { name: tool.name, arguments: {} });
  }
}
await api('DELETE', `/mcp/connection/${id}`);

export {};
