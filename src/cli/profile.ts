/** `agent-gateway profile set|show`: the agent's public profile and its ERC-8004 registration file (docs/tools.md). */
import type { AgentProfile, AgentProfileInput } from '../client/types';
import { type Command, stringValue } from './command';
import { UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const NEEDS =
  "Needs the owner's login (agent-gateway login; an agent key cannot set or read the profile) and the agent (--collection, --token-id).";

export const profileSetCommand: Command = {
  path: ['profile', 'set'],
  usage: 'agent-gateway profile set --name NAME --description TEXT [--image URL] [--json]',
  help: `Sets the agent's public profile, replacing the one before: the name, description and image
its ERC-8004 registration file (GET /agent/{c}/{t}/registration.json, public) presents, with the
agent's MCP endpoint. The file says active: true while your wallet owns the agent.

Options:
  --name NAME          1..100 characters, one line
  --description TEXT   1..2000 characters: what the agent does, how to reach it
  --image URL          an https URL, or a small data:image/png|jpeg|gif|webp;base64 URI (omit: none)
  --json               the saved profile as JSON

${NEEDS}`,
  options: { name: { type: 'string' }, description: { type: 'string' }, image: { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const name = stringValue(values, 'name');
    const description = stringValue(values, 'description');
    if (name === undefined || description === undefined) throw new UsageError('--name and --description are required');
    const image = stringValue(values, 'image');
    const input: AgentProfileInput = { name, description, ...(image === undefined ? {} : { image }) };
    const { session, agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    let saved: AgentProfile;
    try {
      saved = await agent.setProfile(input);
    } catch (err) {
      gatewayFailure(err, 'setting the profile');
    }
    if (values.json === true) io.out(JSON.stringify(saved, null, 2));
    io.err(`profile set: served at ${session.baseUrl}${agent.path}/registration.json`);
    return 0;
  },
};

export const profileShowCommand: Command = {
  path: ['profile', 'show'],
  usage: 'agent-gateway profile show [--json]',
  help: `Shows the agent's profile (name, description, image, who set it, when) and whether its
public registration file presents it as active.

Options:
  --json   the profile and the registration file as JSON: {"profile": ..., "registration": ...}

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const { session, agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    try {
      const [profile, registration] = await Promise.all([agent.getProfile(), agent.getRegistration()]);
      if (values.json === true) {
        io.out(JSON.stringify({ profile, registration }, null, 2));
        return 0;
      }
      io.out(`name:         ${profile.name}`);
      io.out(`description:  ${profile.description.replaceAll('\n', '\n              ')}`);
      io.out(`image:        ${profile.image ?? '(none)'}`);
      io.out(`set by:       ${profile.setByWallet} at ${profile.updatedAt}`);
      io.out(`active:       ${registration.active}`);
      io.out(`file:         ${session.baseUrl}${agent.path}/registration.json`);
    } catch (err) {
      gatewayFailure(err, 'reading the profile');
    }
    return 0;
  },
};
