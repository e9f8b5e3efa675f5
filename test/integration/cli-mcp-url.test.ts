/**
 * `agent-gateway mcp url`: the agent's MCP endpoint and config blocks for Claude
 * Desktop, Cursor and the Inspector, never with the key unless asked; the Cursor block, its
 * variable filled in, reaches the agent with the SDK's client. And `keys create --tools`.
 */
import { describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { connectMcp, mcpUrl } from '../support/agent-mcp';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');

describe('agent-gateway mcp url', () => {
  it('`agent-gateway mcp url` prints blocks without the key; the Cursor block, its variable filled in, reaches the agent; keys create --tools', async () => {
    const agent = await freshAgent(testnet);
    const home = await tempDir();
    try {
      const key = await createKey(agent, ['mcp'], { tools: ['memory_read'] });
      const base = {
        HOME: home.dir,
        AGENT_GATEWAY_URL: testnet.baseUrl,
        AGENT_COLLECTION: agent.collection,
        AGENT_TOKEN_ID: String(agent.tokenId),
      };
      const printed = await runCli(['mcp', 'url', '--key-env', 'MY_AGENT_KEY', '--json'], cliEnv({ ...base, MY_AGENT_KEY: key.key }));
      expect(printed.code, printed.output).toBe(0);
      expect(printed.output).not.toContain(key.key);
      const configs = JSON.parse(printed.stdout);
      expect(configs.endpoint).toBe(mcpUrl(testnet.baseUrl, agent).href);
      const cursor = configs.cursor.mcpServers[`agent-${agent.tokenId}`];
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own placeholder, not a template
      expect(cursor.headers.Authorization).toBe('Bearer ${env:MY_AGENT_KEY}');
      const claude = configs.claudeDesktop.mcpServers[`agent-${agent.tokenId}`];
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own placeholder, not a template
      expect(claude.args).toContain('Authorization:Bearer ${MY_AGENT_KEY}');
      expect(claude.env).toEqual({ MY_AGENT_KEY: 'agk_YOUR_AGENT_KEY' });
      expect(configs.inspector).toContain('--transport http');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own placeholder, not a template
      const { client } = await connectMcp(new URL(cursor.url), cursor.headers.Authorization.replace('Bearer ${env:MY_AGENT_KEY}', key.key));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['memory_read']);
      await client.close();

      const plain = await runCli(['mcp', 'url'], cliEnv(base));
      expect(plain.code, plain.output).toBe(0);
      expect(plain.stdout).toContain('agk_YOUR_AGENT_KEY');
      const embedded = await runCli(['mcp', 'url', '--key-env', 'K', '--embed-key', '--client', 'cursor'], cliEnv({ ...base, K: key.key }));
      expect(embedded.code, embedded.output).toBe(0);
      expect(embedded.stdout).toContain(`Bearer ${key.key}`);
      expect(embedded.stdout).not.toContain('mcp-remote');

      const owner = cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: agent.owner.privateKey });
      const made = await runCli(['keys', 'create', '--name', 'cursor', '--scope', 'mcp', '--tools', 'ask,echo', '--json'], owner);
      expect(made.code, made.output).toBe(0);
      expect(JSON.parse(made.stdout)).toMatchObject({ scopes: ['mcp'], tools: ['ask', 'echo'] });
      const refused = await runCli(['keys', 'create', '--name', 'x', '--scope', 'reply', '--tools', 'ask'], owner);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('--tools needs --scope mcp');
    } finally {
      await home.remove();
    }
  });
});
