/**
 * `agent-gateway whoami` and `agent-gateway logout`: the saved login of a gateway, read and removed
 * from the token file alone (no network: they work with the gateway down).
 */
import type { Command } from './command';
import { CliError } from './output';
import { resolveBaseUrl, type GlobalValues } from './session';
import { candidateTokenFiles, readLogins, removeToken, type SavedToken } from './token-file';

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
  usage: 'agent-gateway whoami [--json]',
  help: `Shows the login saved for the gateway (--base-url, AGENT_GATEWAY_URL or the running dev
stack): wallet, chain, gateway URL, token file and when the token expires. Reads the token file
only (no network; the token itself is never printed).

Options:
  --json   print { wallet, chainId, baseUrl, tokenFile, expiresAt, expired } on stdout

Exit code 1 when no login is saved for the gateway or its token has expired.`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const baseUrl = resolveBaseUrl(values as GlobalValues, env);
    const { files, file, saved } = await findLogin(values as GlobalValues, env, baseUrl);
    if (!saved || !file) throw new CliError(`not logged in to ${baseUrl} (looked in ${where(files)}); run agent-gateway login`);
    const expiry = expiryLine(saved, Date.now());
    if (values.json === true) {
      const { wallet, chainId, expiresAt } = saved;
      io.out(JSON.stringify({ wallet, chainId, baseUrl, tokenFile: file, expiresAt, expired: expiry.expired }, null, 2));
    } else {
      io.out(`wallet      ${saved.wallet || '(not recorded)'}`);
      io.out(`chain       ${saved.chainId}`);
      io.out(`gateway     ${baseUrl}`);
      io.out(`token file  ${file}`);
      io.out(`expires     ${expiry.text}`);
    }
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
