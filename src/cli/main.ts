/**
 * `agent-gateway`: the command line of the gateway (bin/agent-gateway.mjs runs `main`).
 *
 *   agent-gateway [global options] <command> [options]
 *
 * Results go to stdout, diagnostics and progress to stderr. Exit codes: 0 success, 1 failure,
 * 2 wrong usage, 3 refused for safety (a sign-in message not for the gateway asked, a price
 * over `pay ask --max-usd`), 130 interrupted. Tokens, private keys, passwords and header values
 * are never printed (except `login --print-token`).
 */
import { parseArgs } from 'node:util';
import type { Command, OptionValues } from './command';
import { CliError, describeError, processIo, scrubRegistered, UsageError, type Io } from './output';
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './session';

interface CommandEntry {
  path: string[];
  summary: string;
  /** Loaded only when the command runs (or shows its help): startup stays fast. */
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { path: ['login'], summary: 'log in with a wallet and save the token', load: async () => (await import('./login')).loginCommand },
  {
    path: ['whoami'],
    summary: 'show the saved login (wallet, chain, expiry)',
    load: async () => (await import('./account')).whoamiCommand,
  },
  { path: ['logout'], summary: "remove the gateway's saved token", load: async () => (await import('./account')).logoutCommand },
  {
    path: ['agents', 'list'],
    summary: "list your wallet's agents in a collection (ERC-721 Enumerable)",
    load: async () => (await import('./agents')).agentsListCommand,
  },
  {
    path: ['contexts', 'create'],
    summary: 'create context keys from a file',
    load: async () => (await import('./contexts')).contextsCreateCommand,
  },
  {
    path: ['contexts', 'list'],
    summary: "list the agent's context keys",
    load: async () => (await import('./contexts')).contextsListCommand,
  },
  {
    path: ['hydrate'],
    summary: "hydrate an agent's memory from a JSONL file, resumably",
    load: async () => (await import('./hydrate')).hydrateCommand,
  },
  {
    path: ['messages', 'export'],
    summary: "export a context's messages as JSONL",
    load: async () => (await import('./messages')).messagesExportCommand,
  },
  {
    path: ['messages', 'summary'],
    summary: "print a context's summary of what replies left out",
    load: async () => (await import('./messages')).messagesSummaryCommand,
  },
  {
    path: ['search'],
    summary: "search the agent's memory across contexts",
    load: async () => (await import('./search')).searchCommand,
  },
  { path: ['keys', 'create'], summary: 'create an agent key for automation', load: async () => (await import('./keys')).keysCreateCommand },
  { path: ['keys', 'list'], summary: "list the agent's keys", load: async () => (await import('./keys')).keysListCommand },
  { path: ['keys', 'revoke'], summary: 'revoke an agent key at once', load: async () => (await import('./keys')).keysRevokeCommand },
  {
    path: ['oauth', 'grants'],
    summary: 'list the apps (MCP clients) with OAuth access to the agent',
    load: async () => (await import('./oauth')).oauthGrantsCommand,
  },
  {
    path: ['oauth', 'revoke'],
    summary: "revoke an app's OAuth access at once",
    load: async () => (await import('./oauth')).oauthRevokeCommand,
  },
  {
    path: ['profile', 'set'],
    summary: "set the agent's public profile (registration.json)",
    load: async () => (await import('./profile')).profileSetCommand,
  },
  {
    path: ['profile', 'show'],
    summary: "show the agent's profile and whether it is active",
    load: async () => (await import('./profile')).profileShowCommand,
  },
  {
    path: ['settings', 'set'],
    summary: 'set the model the agent answers with (provider, model, key from an env variable)',
    load: async () => (await import('./settings')).settingsSetCommand,
  },
  {
    path: ['settings', 'show'],
    summary: "show the agent's LLM settings (never the key)",
    load: async () => (await import('./settings')).settingsShowCommand,
  },
  {
    path: ['templates', 'set'],
    summary: 'create or replace a prompt template from a file, stdin or --text',
    load: async () => (await import('./templates')).templatesSetCommand,
  },
  {
    path: ['templates', 'get'],
    summary: "print a prompt template's text",
    load: async () => (await import('./templates')).templatesGetCommand,
  },
  {
    path: ['templates', 'list'],
    summary: "list the agent's prompt templates",
    load: async () => (await import('./templates')).templatesListCommand,
  },
  {
    path: ['pay', 'ask'],
    summary: 'ask the agent and pay for the reply in USDC (x402; no login)',
    load: async () => (await import('./pay')).payAskCommand,
  },
  { path: ['audit'], summary: "the agent's audit trail, newest first", load: async () => (await import('./audit')).auditCommand },
  {
    path: ['usage'],
    summary: "show the agent's token usage by day, credential or context",
    load: async () => (await import('./usage')).usageCommand,
  },
  {
    path: ['chat'],
    summary: 'talk with the agent: its replies streamed, tools shown',
    load: async () => (await import('./chat')).chatCommand,
  },
  {
    path: ['mcp', 'url'],
    summary: "the agent's MCP endpoint and config blocks for Claude Desktop, Cursor, the Inspector",
    load: async () => (await import('./mcp-url')).mcpUrlCommand,
  },
  {
    path: ['a2a', 'card'],
    summary: "print the agent's A2A Agent Card (public; JSON)",
    load: async () => (await import('./a2a')).a2aCardCommand,
  },
  {
    path: ['mcp', 'check'],
    summary: 'check a tool server against the contract, directly',
    load: async () => (await import('./mcp')).mcpCheckCommand,
  },
  { path: ['tools', 'add'], summary: 'register a tool server with the agent', load: async () => (await import('./tools')).toolsAddCommand },
  {
    path: ['tools', 'list'],
    summary: "list the agent's tool servers (or one's live tools)",
    load: async () => (await import('./tools')).toolsListCommand,
  },
  { path: ['tools', 'remove'], summary: 'remove a tool-server connection', load: async () => (await import('./tools')).toolsRemoveCommand },
  {
    path: ['tools', 'authorize'],
    summary: 'a fresh URL to authorize an OAuth tool server, and wait until it is ready',
    load: async () => (await import('./tools-oauth')).toolsAuthorizeCommand,
  },
  {
    path: ['tools', 'check'],
    summary: 'check a tool server directly (= mcp check)',
    load: async () => (await import('./tools')).toolsCheckCommand,
  },
  { path: ['tools', 'call'], summary: 'call a tool through the gateway', load: async () => (await import('./tools')).toolsCallCommand },
];

/** Global options that take a value (their value is not a command word). */
const VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, o]) => o.type === 'string')
    .map(([name]) => `--${name}`),
);

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.path.join(' ').length));
  return `agent-gateway: the command line of agent-gateway (wallet login, memory hydration, tool-server checks)

Usage: agent-gateway [global options] <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

${GLOBAL_HELP}

Run agent-gateway <command> --help for a command's options; agent-gateway --version prints the version.`;
}

function commandHelp(command: Command): string {
  return `Usage: ${command.usage}

${command.help}

${GLOBAL_HELP}`;
}

/** The command words in argv: positionals before any command option, skipping global option values. */
function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    words.push(arg);
  }
  return words;
}

/**
 * argv with the command's dash-led arguments (`command.dashArgs`) moved after a `--`, where
 * parseArgs reads them as positionals. Option spellings and option values are left where they are.
 */
export function dashArgsLast(argv: readonly string[], command: Pick<Command, 'options' | 'dashArgs'>): string[] {
  const pattern = command.dashArgs;
  if (pattern === undefined) return [...argv];
  const options: Command['options'] = { ...GLOBAL_OPTIONS, ...command.options };
  const takesValue = new Set(
    Object.entries(options)
      .filter(([, o]) => o.type === 'string')
      .flatMap(([name, o]) => [`--${name}`, ...(o.short === undefined ? [] : [`-${o.short}`])]),
  );
  const spelled = new Set(Object.keys(options).map((name) => `--${name}`));
  const kept: string[] = [];
  const moved: string[] = [];
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i]!;
    if (takesValue.has(arg) && i + 1 < argv.length) {
      kept.push(arg, argv[++i]!);
      continue;
    }
    const isOption = spelled.has(arg.split('=')[0]!);
    (arg.startsWith('-') && !isOption && pattern.test(arg) ? moved : kept).push(arg);
  }
  const rest = argv.slice(i + 1);
  return moved.length === 0 ? [...argv] : [...kept, '--', ...moved, ...rest];
}

function findCommand(words: readonly string[]): CommandEntry | undefined {
  return COMMANDS.find((c) => c.path.every((w, i) => words[i] === w));
}

/** Runs the CLI; resolves with the exit code (it never calls process.exit itself, except on Ctrl-C during hydrate). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: Io = processIo()): Promise<number> {
  const words = commandWords(argv);
  if (words.length === 0 && (argv.includes('--version') || argv.includes('-V'))) {
    io.out(await (await import('./version')).versionLine());
    return 0;
  }
  if (words.length === 0 || words[0] === 'help') {
    const target = words[0] === 'help' ? findCommand(argv.filter((a) => !a.startsWith('-')).slice(1)) : undefined;
    const wantsHelp = words[0] === 'help' || argv.includes('--help') || argv.includes('-h');
    if (target) io.out(commandHelp(await target.load()));
    else if (wantsHelp) io.out(overview());
    else {
      io.err(overview());
      return 2;
    }
    return 0;
  }
  const entry = findCommand(words);
  if (!entry) {
    const group = COMMANDS.filter((c) => c.path[0] === words[0]);
    if (group.length > 0 && (argv.includes('--help') || argv.includes('-h'))) {
      io.out((await Promise.all(group.map(async (c) => commandHelp(await c.load())))).join('\n\n'));
      return 0;
    }
    const hint =
      group.length > 0
        ? `${words[0]} needs one of: ${group.map((c) => c.path[1]).join(', ')}`
        : `unknown command ${JSON.stringify(words.join(' '))}`;
    io.err(`agent-gateway: ${hint}; run agent-gateway --help`);
    return 2;
  }
  const command = await entry.load();

  let values: OptionValues;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: dashArgsLast(argv, command),
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as OptionValues;
    positionals = parsed.positionals;
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).trim();
    io.err(`agent-gateway ${command.path.join(' ')}: ${scrubRegistered(message)}\nUsage: ${command.usage} (see --help)`);
    return 2;
  }
  if (values.help === true) {
    io.out(commandHelp(command));
    return 0;
  }
  // Drop the command words (the first occurrences, in order).
  const args = [...positionals];
  for (const word of command.path) args.splice(args.indexOf(word), 1);
  if (args.length < command.args.min || args.length > command.args.max) {
    const what = args.length > command.args.max ? `unexpected argument ${JSON.stringify(args[command.args.max])}` : 'missing argument';
    io.err(`agent-gateway ${command.path.join(' ')}: ${what}\nUsage: ${command.usage}`);
    return 2;
  }

  try {
    return await command.run({ values, args, env, io });
  } catch (err) {
    const prefix = `agent-gateway ${command.path.join(' ')}`;
    if (err instanceof UsageError) {
      io.err(`${prefix}: ${err.message}\nUsage: ${command.usage}`);
      return err.exitCode;
    }
    io.err(`${prefix}: ${describeError(err)}`);
    if (!(err instanceof CliError) && env.AGENT_GATEWAY_DEBUG && err instanceof Error && err.stack) io.err(err.stack);
    return err instanceof CliError ? err.exitCode : 1;
  }
}
