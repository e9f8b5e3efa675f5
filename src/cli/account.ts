/**
 * `agent-gateway whoami` and `agent-gateway logout`: the saved login of a gateway, read and removed
 * from the token file alone (no network: they work with the gateway down). With a collection
 * named, whoami also asks the gateway for the wallet's role for its agents there.
 */
import type { Command } from './command';
import { CliError, UsageError } from './output';
import { resolveBaseUrl, type GlobalValues } from './session';
import { candidateTokenFiles, readLogins, removeToken, type SavedToken } from './token-file';
import { agentRoles, namedAgents, printRoles } from './whoami-roles';

/** The login saved for `baseUrl` in the first candidate file holding one, and the files looked at. */
async function findLogin(values: GlobalValues, env: NodeJS.ProcessEnv, baseUrl: string) {
  const files = await candidateTokenFiles(values['token-file'], env);
  for (const file of files) {
    const saved = (await readLogins(file)).get(baseUrl);
    if (saved) return { files, file, saved };
  }
  return { files, file: undefined, saved: undefined };
}

/** `in 23 h 59 min`, `in 40 s`: how long until `ms` from now (positive). */
function remaining(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))} s`;
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

function expiryLine(saved: SavedToken, now: number): { text: string; expired: boolean } {
  if (!saved.expiresAt) return { text: 'no expiry recorded', expired: false };
  const left = Date.parse(saved.expiresAt) - now;
  if (left <= 0) return { text: `${saved.expiresAt} (expired; run agent-gateway login again)`, expired: true };
  return { text: `${saved.expiresAt} (in ${remaining(left)})`, expired: false };
}

function where(files: string[]): string {
  return files.length === 0 ? 'no token file in ~/.agent-gateway' : files.join(', ');
}

export const whoamiCommand: Command = {
  path: ['whoami'],
  usage: 'agent-gateway whoami [--collection ADDR [--token-id ID]] [--json]',
  help: `Shows the login saved for the gateway (--base-url, AGENT_GATEWAY_URL or the running dev
stack): wallet, chain, gateway URL, token file and when the token expires. Without a collection
it reads the token file only (no network; the token itself is never printed).

With a collection (--collection or AGENT_COLLECTION) it also asks the gateway how the wallet
reaches its agents there: for the agent --token-id (or AGENT_TOKEN_ID) names, else for each agent
the wallet owns or may use as a delegate in that collection (at most 20), one line each:
\`owner\`, \`delegate of 0x…\` (delegate.xyz), \`renter of 0x…\` (ERC-4907), or \`no access\` with the
gateway's reason (e.g. the owner lets no delegate in).

Options:
  --json   print { wallet, chainId, baseUrl, tokenFile, expiresAt, expired } on stdout, with
           agents: [{ collection, tokenId, role, owner } or { collection, tokenId, role: null,
           error: { status, code, message } }] when a collection is named (null when the
           gateway could not be asked)

Exit code 1 when no login is saved for the gateway or its token has expired, or when the gateway
cannot be asked about the agents (the login is shown all the same; stderr says why).`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const baseUrl = resolveBaseUrl(values as GlobalValues, env);
    const { files, file, saved } = await findLogin(values as GlobalValues, env, baseUrl);
    if (!saved || !file) throw new CliError(`not logged in to ${baseUrl} (looked in ${where(files)}); run agent-gateway login`);
    const expiry = expiryLine(saved, Date.now());
    const named = namedAgents(values as GlobalValues, env);
    // The login is shown whatever the gateway says; a gateway that cannot be asked is said on stderr (exit 1).
    let unasked = false;
    const ask = async () => {
      if (!named || expiry.expired) return undefined;
      try {
        return await agentRoles(values as GlobalValues, env, io, named);
      } catch (err) {
        if (!(err instanceof CliError) || err instanceof UsageError) throw err;
        io.err(`agent-gateway: whoami: ${err.message}`);
        unasked = true;
        return undefined;
      }
    };
    if (values.json === true) {
      const { wallet, chainId, expiresAt } = saved;
      const roles = await ask();
      const agents = roles ? { agents: roles.agents } : unasked ? { agents: null } : {};
      io.out(JSON.stringify({ wallet, chainId, baseUrl, tokenFile: file, expiresAt, expired: expiry.expired, ...agents }, null, 2));
    } else {
      io.out(`wallet      ${saved.wallet || '(not recorded)'}`);
      io.out(`chain       ${saved.chainId}`);
      io.out(`gateway     ${baseUrl}`);
      io.out(`token file  ${file}`);
      io.out(`expires     ${expiry.text}`);
      const roles = await ask();
      if (roles && named) printRoles(io, roles, named.collection);
    }
    if (unasked) return 1;
    return expiry.expired ? 1 : 0;
  },
};

export const logoutCommand: Command = {
  path: ['logout'],
  usage: 'agent-gateway logout',
  help: `Removes the login saved for the gateway (--base-url, AGENT_GATEWAY_URL or the running dev
stack) from the token file, keeping other gateways' logins; the file goes when none is left.
Reads and writes the token file only (no network). The token itself stays valid until it expires
(the gateway keeps no sessions): logout forgets it on this machine. Running it again is a no-op.`,
  options: {},
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const baseUrl = resolveBaseUrl(values as GlobalValues, env);
    const files = await candidateTokenFiles((values as GlobalValues)['token-file'], env);
    const removed: string[] = [];
    for (const file of files) if (await removeToken(file, baseUrl)) removed.push(file);
    io.out(
      removed.length > 0
        ? `logged out of ${baseUrl}: its token removed from ${removed.join(', ')}`
        : `not logged in to ${baseUrl} (looked in ${where(files)}); nothing to remove`,
    );
    return 0;
  },
};
