/** `agent-gateway mcp check URL`: checks a tool server directly (see ./mcp-check). */
import { stringValue, type Command } from './command';
import { registerSecret, UsageError } from './output';

/** `NAME:VALUE` → [name, value]; never echoes the value in an error. */
export function parseHeader(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  if (colon <= 0) throw new UsageError('--header must be NAME:VALUE (for example x-api-key:abc or "Authorization: Bearer abc")');
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header: ${JSON.stringify(name.slice(0, 60))} is not a header name`);
  if (value === '') throw new UsageError(`--header ${name}: the value is empty`);
  return [name, value];
}

export const mcpCheckCommand: Command = {
  path: ['mcp', 'check'],
  usage: 'agent-gateway mcp check URL [--header NAME:VALUE]... [--call TOOL [--args JSON]] [--timeout MS]',
  help: `Checks a tool server the way the gateway will use it: tools/list, the JSON-RPC replies, every
tool's definition and input schema, optionally a tools/call round trip, and (with a credential
header) that a wrong credential is refused with 401. Talks to the server directly, not through the
gateway, so http:// URLs work for local testing. Header values are never printed.

Options:
  --header NAME:VALUE   a credential header (repeatable; e.g. "Authorization: Bearer abc")
  --call TOOL           also call this tool
  --args JSON           the call's arguments, a JSON object (default {})
  --timeout MS          deadline of each operation (default 10000)

Exit code 1 when any check fails.`,
  options: {
    header: { type: 'string', multiple: true },
    call: { type: 'string' },
    args: { type: 'string' },
    timeout: { type: 'string' },
  },
  args: { min: 1, max: 1 },
  async run({ values, args, io }) {
    const url = args[0]!;
    const headers: Record<string, string> = {};
    for (const raw of (values.header as string[] | undefined) ?? []) {
      registerSecret(raw.slice(raw.indexOf(':') + 1).trim());
      const [name, value] = parseHeader(raw);
      registerSecret(value);
      const bearer = /^bearer +(.+)$/i.exec(value)?.[1];
      registerSecret(bearer);
      headers[name] = value;
    }
    const name = stringValue(values, 'call');
    const rawArgs = stringValue(values, 'args');
    if (rawArgs !== undefined && name === undefined) throw new UsageError('--args needs --call TOOL');
    let callArgs: Record<string, unknown> = {};
    if (rawArgs !== undefined) {
      try {
        callArgs = JSON.parse(rawArgs) as Record<string, unknown>;
      } catch {
        throw new UsageError('--args must be JSON');
      }
      if (typeof callArgs !== 'object' || callArgs === null || Array.isArray(callArgs)) throw new UsageError('--args must be a JSON object');
    }
    const timeout = stringValue(values, 'timeout');
    if (timeout !== undefined && (!/^\d+$/.test(timeout) || Number(timeout) < 1)) throw new UsageError('--timeout must be a positive whole number of milliseconds');
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
