/** `agent-gateway mcp check URL`: checks a tool server directly (see ./mcp-check). */
import { jsonObjectOption, stringValue, type Command, type OptionValues } from './command';
import { registerSecret, UsageError } from './output';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** More than any credential; stdin is read to its end, so a stray pipe does not hang us long. */
const STDIN_MAX_BYTES = 64 * 1024;

/** `NAME:VALUE` → [name, value]; never echoes the value in an error. */
export function parseHeader(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  if (colon <= 0) throw new UsageError('--header must be NAME:VALUE (for example x-api-key:abc or "Authorization: Bearer abc")');
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) throw new UsageError(`--header: ${JSON.stringify(name.slice(0, 60))} is not a header name`);
  if (value === '') throw new UsageError(`--header ${name}: the value is empty`);
  return [name, value];
}

/** `NAME=VAR` → [name, value of VAR]; never echoes the value. */
export function headerFromEnv(raw: string, env: NodeJS.ProcessEnv): [string, string] {
  const equals = raw.indexOf('=');
  const name = equals > 0 ? raw.slice(0, equals).trim() : '';
  const variable = equals > 0 ? raw.slice(equals + 1).trim() : '';
  if (!HEADER_NAME.test(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
    throw new UsageError(
      '--header-env must be NAME=VARIABLE (for example x-api-key=MCP_API_KEY): the header NAME gets the value of the environment variable',
    );
  }
  const value = env[variable]?.trim() ?? '';
  if (value === '') throw new UsageError(`--header-env ${name}: the environment variable ${variable} is not set or empty`);
  return [name, value];
}

/** The header value from stdin: its whole content, without the trailing line break. */
async function headerFromStdin(name: string, stdin: NodeJS.ReadableStream): Promise<[string, string]> {
  if (!HEADER_NAME.test(name)) throw new UsageError(`--header-stdin: ${JSON.stringify(name.slice(0, 60))} is not a header name`);
  if ((stdin as NodeJS.ReadStream).isTTY) throw new UsageError(`--header-stdin ${name}: pipe the value in (stdin is a terminal)`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > STDIN_MAX_BYTES) throw new UsageError(`--header-stdin ${name}: stdin holds more than ${STDIN_MAX_BYTES} bytes`);
    chunks.push(buffer);
  }
  const value = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
    .trim();
  if (value === '') throw new UsageError(`--header-stdin ${name}: stdin is empty`);
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header-stdin ${name}: the value must be one line`);
  return [name, value];
}

/** Registers a header value (and the token of a Bearer value) as secrets never printed. */
function hideValue(value: string): void {
  registerSecret(value);
  registerSecret(/^bearer +(.+)$/i.exec(value)?.[1]);
}

/** Every credential header from --header, --header-env and --header-stdin. */
async function credentialHeaders(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  stdin: NodeJS.ReadableStream,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const raw of (values.header as string[] | undefined) ?? []) {
    registerSecret(raw.slice(raw.indexOf(':') + 1).trim());
    const [name, value] = parseHeader(raw);
    hideValue(value);
    headers[name] = value;
  }
  for (const raw of (values['header-env'] as string[] | undefined) ?? []) {
    const [name, value] = headerFromEnv(raw, env);
    hideValue(value);
    headers[name] = value;
  }
  const fromStdin = stringValue(values, 'header-stdin');
  if (fromStdin !== undefined) {
    const [name, value] = await headerFromStdin(fromStdin, stdin);
    hideValue(value);
    headers[name] = value;
  }
  return headers;
}

export const mcpCheckCommand: Command = {
  path: ['mcp', 'check'],
  usage:
    'agent-gateway mcp check URL [--header-env NAME=VAR | --header-stdin NAME | --header NAME:VALUE] [--call TOOL [--args JSON]] [--timeout MS]',
  help: `Checks a tool server the way the gateway will use it, by the gateway's own acceptance rule:
the URL (a deployed gateway takes https:// on a public name; the local stack, npm run dev, also
http:// on 127.0.0.1, localhost or ::1), tools/list, the JSON-RPC replies, every tool's definition
(MCP's tool shape; description optional) and its input and output schemas, optionally a tools/call
round trip, and (with a credential header) that a wrong credential is refused with 401. Talks to the
server directly, not through the gateway. Header values are never printed.

Options:
  --header-env NAME=VAR a credential header whose value is in the environment variable VAR
                        (e.g. --header-env Authorization=MCP_AUTH with MCP_AUTH="Bearer abc")
  --header-stdin NAME   a credential header whose value is read from stdin
                        (e.g. printf %s "$KEY" | agent-gateway mcp check URL --header-stdin x-api-key)
  --header NAME:VALUE   a credential header on the command line: avoid it for real credentials,
                        the command line is visible to other users (ps) and kept in shell history
  --call TOOL           also call this tool
  --args JSON           the call's arguments, a JSON object (default {})
  --timeout MS          deadline of each operation (default 10000)

Exit code 1 when any check fails.`,
  options: {
    header: { type: 'string', multiple: true },
    'header-env': { type: 'string', multiple: true },
    'header-stdin': { type: 'string' },
    call: { type: 'string' },
    args: { type: 'string' },
    timeout: { type: 'string' },
  },
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const url = args[0]!;
    const headers = await credentialHeaders(values, env, io.stdin);
    const name = stringValue(values, 'call');
    const rawArgs = stringValue(values, 'args');
    if (rawArgs !== undefined && name === undefined) throw new UsageError('--args needs --call TOOL');
    const callArgs = jsonObjectOption(values, 'args', {});
    const timeout = stringValue(values, 'timeout');
    if (timeout !== undefined && (!/^\d+$/.test(timeout) || Number(timeout) < 1))
      throw new UsageError('--timeout must be a positive whole number of milliseconds');
    const { runMcpCheck } = await import('./mcp-check');
    const result = await runMcpCheck({
      url,
      headers,
      ...(name !== undefined ? { call: { name, arguments: callArgs } } : {}),
      ...(timeout !== undefined ? { timeoutMs: Number(timeout) } : {}),
      log: (line) => io.out(line),
    });
    return result.ok ? 0 : 1;
  },
};
