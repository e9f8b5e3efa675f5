/** `agent-gateway oauth grants|revoke`: the MCP and A2A clients approved for an agent, with the owner's login. */
import type { Command } from './command';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const NEEDS = "Needs the owner's login (agent-gateway login; an agent key cannot manage grants) and the agent (--collection, --token-id).";

export const oauthGrantsCommand: Command = {
  path: ['oauth', 'grants'],
  usage: 'agent-gateway oauth grants [--json]',
  help: `Lists the apps with access to the agent: the MCP clients (Claude, Cursor, ...) and other
agents (A2A) your wallet approved on the authorize page. Columns: grant id, client id, client
name, scope, created, refresh token live (yes: the client can still get access tokens), and where
its tokens work (mcp: the MCP server, a2a: the A2A endpoint). The client name is what the client
registered itself as: anyone can pick any name. Never a token.

Options:
  --json   the grants as a JSON array

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const { grants } = await agent.listOAuthGrants();
      if (values.json === true) io.out(JSON.stringify(grants, null, 2));
      else {
        for (const g of grants) {
          const door = g.resource.endsWith('/a2a') ? 'a2a' : 'mcp';
          io.out(
            [g.id, g.clientId, g.clientName ?? '-', g.scope.join(','), g.createdAt, g.refreshTokenLive ? 'yes' : 'no', door].join('\t'),
          );
        }
        io.err(`oauth grants: ${grants.length} grants (id, client id, client name, scope, created, refresh token live, mcp or a2a)`);
      }
    } catch (err) {
      gatewayFailure(err, 'listing OAuth grants');
    }
    return 0;
  },
};

export const oauthRevokeCommand: Command = {
  path: ['oauth', 'revoke'],
  usage: 'agent-gateway oauth revoke GRANT_ID',
  help: `Revokes the grant GRANT_ID at once: its access token is refused on the agent's MCP server
and its refresh token no longer works; the app must be approved again. Other apps keep theirs.

${NEEDS}`,
  options: {},
  args: { min: 1, max: 1 },
  // The OAuth library's grant ids are 16 base64url characters: one in 32 begins with '-'.
  dashArgs: /^[A-Za-z0-9_-]{16}$/,
  async run({ values, args, env, io }) {
    const grantId = args[0]!;
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const revoked = await agent.revokeOAuthGrant(grantId);
      io.out(`revoked grant ${revoked.id} of client ${revoked.clientId}`);
    } catch (err) {
      gatewayFailure(err, `revoking OAuth grant ${grantId}`);
    }
    return 0;
  },
};
