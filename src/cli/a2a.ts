/** `agent-gateway a2a card`: the agent's A2A Agent Card, as another agent reads it (docs/tools.md). */
import { createGatewayClient } from '../client';
import { GatewayError } from '../client/errors';
import type { Command } from './command';
import { CliError, describeGatewayError } from './output';
import { agentOf, gatewayFailure, type GlobalValues, resolveBaseUrl, retrying } from './session';

export const a2aCardCommand: Command = {
  path: ['a2a', 'card'],
  usage: 'agent-gateway a2a card',
  help: `Prints the agent's A2A Agent Card (GET {gateway}/agent/{collection}/{token-id}/.well-known/agent-card.json)
as JSON on stdout, and where it is and the A2A endpoint it names on stderr. The card is public and
made from the agent's profile (agent-gateway profile set): another agent resolves it, then sends
messages to the A2A endpoint (POST …/a2a) with an agent key of scope reply or an OAuth token for
that URL. No login needed: no credential is sent.

Needs the agent (--collection, --token-id) and the gateway (--base-url, AGENT_GATEWAY_URL or the dev stack).`,
  options: {},
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const g = values as GlobalValues;
    const baseUrl = resolveBaseUrl(g, env);
    const agent = agentOf({ client: createGatewayClient({ baseUrl, fetch: retrying(io, baseUrl) }) }, g, env);
    const where = `${baseUrl}${agent.path}/.well-known/agent-card.json`;
    let card: Awaited<ReturnType<typeof agent.getAgentCard>>;
    try {
      card = await agent.getAgentCard();
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'profile_not_found') {
        throw new CliError(
          `reading the agent card: ${describeGatewayError(err)} (the card is made from the profile: agent-gateway profile set --name ... --description ...)`,
        );
      }
      gatewayFailure(err, 'reading the agent card');
    }
    io.out(JSON.stringify(card, null, 2));
    io.err(`a2a card: ${where}; A2A endpoint ${card.supportedInterfaces[0]?.url ?? '(none)'}`);
    return 0;
  },
};
