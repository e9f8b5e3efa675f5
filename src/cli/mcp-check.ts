/**
 * `agent-gateway mcp check <url>`: checks a tool server against the spec's "Contract of an external
 * tool server" with our own MCP client (src/tool-servers/client.ts), directly, not through the gateway. So
 * it also works on http:// URLs, for testing a server locally before it is registered.
 *
 * Checks, in order (a check whose prerequisite failed is not run and listed as not checked):
 *   1. tools/list        reachable, tools/list answers with a `tools` array (nextCursor followed)
 *   2. JSON-RPC reply    JSON-RPC 2.0 envelope with our id, no redirect, within the deadline and
 *                        the 1 MiB byte cap
 *   3. tool definitions  every tool passes the gateway's own acceptance rule (src/tool-servers/tool-rules.ts:
 *                        unique names, MCP's tool shape within its caps, valid input and output
 *                        schemas; a description is optional, as in MCP)
 *   4. tools/call        (with `call`) a round trip whose result holds a `content` array
 *   5. wrong credential  (with credential headers) the same tools/list with every credential value
 *                        replaced by a random string is answered with 401
 *
 * The URL goes through the gateway's own URL rule (src/tool-servers/tool-rules.ts) under production's policy
 * and the local stack's: a URL neither accepts fails a `URL` check (the server is still checked);
 * one only the local stack accepts (loopback http) is noted as such.
 *
 * Credential headers: `Authorization: Bearer <token>` becomes bearer auth, any other header
 * header auth; one credential header at most. Header values are never printed: the table names
 * headers only, and every detail line is scrubbed of the given values. The URL is printed without
 * its query (which may hold a credential too).
 */
import { randomBytes } from 'node:crypto';
import {
  createMcpClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  McpError,
  type McpAuth,
  type McpClient,
  type Tool,
} from '../tool-servers/client';
import { validateArguments } from '../tool-servers/schema-check';
import { checkSnapshot, toolListProblems, toolServerUrlVerdict } from '../tool-servers/tool-rules';
import { scrub } from '../scrub';

export interface McpCheckArgs {
  /** The tool server's endpoint, e.g. `https://tools.example.com/mcp` (http:// is fine for local testing). */
  url: string;
  /** Credential headers by name; at most one. */
  headers: Record<string, string>;
  /** Optional tools/call round trip. */
  call?: { name: string; arguments: Record<string, unknown> };
  /** Deadline of each operation (default 10 s, as the gateway uses). */
  timeoutMs?: number;
  /** Receives the report, one line at a time. */
  log: (line: string) => void;
  fetch?: typeof fetch;
}

export interface McpCheckResult {
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
}

export const CHECK_NAMES = {
  arguments: 'arguments',
  url: 'URL',
  list: 'tools/list',
  protocol: 'JSON-RPC reply',
  tools: 'tool definitions',
  call: 'tools/call',
  wrongCredential: 'wrong credential',
} as const;

type Check = McpCheckResult['checks'][number];

/** Cap of one check's detail, and of one tool's problem within it. */
const MAX_DETAIL = 1200;
const MAX_TOOL_PROBLEM = 160;

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The URL as it may be printed: without query and fragment, which may carry a credential. */
function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

type Auth = { ok: true; auth: McpAuth; description: string } | { ok: false; problem: string };

/** Maps the given headers to the client's auth; one credential header at most. */
function authFromHeaders(headers: Record<string, string>): Auth {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return { ok: true, auth: { type: 'none' }, description: 'no credential' };
  if (entries.length > 1) {
    return {
      ok: false,
      problem: `one credential header is supported, got ${entries.length} (${entries.map(([name]) => name).join(', ')})`,
    };
  }
  const [name, value] = entries[0]!;
  if (typeof value !== 'string') return { ok: false, problem: `header ${name} has no value` };
  const bearer = /^bearer +(.+)$/i.exec(value);
  if (name.toLowerCase() === 'authorization' && bearer) {
    return { ok: true, auth: { type: 'bearer', token: bearer[1]! }, description: 'Authorization: Bearer (value hidden)' };
  }
  return { ok: true, auth: { type: 'header', name, value }, description: `header ${name} (value hidden)` };
}

/** The same kind of credential with a random value, for the wrong-credential check. */
function wrongAuth(auth: McpAuth): McpAuth {
  const random = `wrong-${randomBytes(16).toString('hex')}`;
  if (auth.type === 'bearer') return { type: 'bearer', token: random };
  if (auth.type === 'header') return { ...auth, value: random };
  return auth;
}

/** Where a failure of tools/list belongs: the listing itself, the JSON-RPC envelope, or a tool. */
type Stage = 'list' | 'protocol' | 'tools';

interface Defect {
  stage: Stage;
  text: string;
}

/** A readable defect for an McpError, and the check it fails. */
function describeError(err: McpError, ctx: { timeoutMs: number; maxBytes: number; credential: boolean }): Defect {
  const status = err.status;
  switch (err.kind) {
    case 'unreachable':
      return { stage: 'list', text: `unreachable: ${err.message}` };
    case 'unauthorized':
      return {
        stage: 'list',
        text: ctx.credential
          ? `${status ?? 401} with the given credential: the server rejects it`
          : `${status ?? 401} with the given credential (none was given: pass one with --header)`,
      };
    case 'oauth_required':
      return {
        stage: 'list',
        text: '401 with an OAuth challenge (resource_metadata): OAuth tool servers are not supported by the gateway',
      };
    case 'upstream_dependency':
      return { stage: 'list', text: '424: the server cannot reach its backend' };
    case 'upstream_error':
      return { stage: 'list', text: `${status ?? 500}: server error` };
    case 'bad_status':
      return {
        stage: 'list',
        text:
          status === 404 || status === 405
            ? `HTTP ${status}: is this the JSON-RPC path (often /mcp, maybe with a trailing slash)?`
            : status !== undefined
              ? `unexpected HTTP ${status}: ${err.message}`
              : err.message,
      };
    case 'rpc_error':
      return { stage: 'list', text: `answered with a JSON-RPC error: ${err.message.replace(/^tool server returned /, '')}` };
    case 'redirect':
      return { stage: 'protocol', text: `redirects (${status ?? '3xx'}) — not followed; register the final URL` };
    case 'timeout':
      return { stage: 'protocol', text: `no answer within ${ctx.timeoutMs} ms` };
    case 'bad_id':
      return { stage: 'protocol', text: 'wrong JSON-RPC id: the reply carries another id than the request' };
    case 'too_large':
      return /more than/.test(err.message)
        ? { stage: 'list', text: err.message.replace(/^tool server /, '') }
        : { stage: 'protocol', text: `reply larger than ${formatBytes(ctx.maxBytes)}` };
    case 'invalid_schema':
      return { stage: 'tools', text: `tool "${err.tool ?? '?'}": ${err.message.replace(/^Invalid tool schema: (tool \S+: )?/, '')}` };
    case 'bad_response': {
      const message = err.message;
      if (/answered with HTML/.test(message)) return { stage: 'protocol', text: 'HTML instead of JSON-RPC' };
      if (/^tools\/list holds a tool without a name/.test(message)) return { stage: 'tools', text: 'a tool has no name' };
      if (/^tool .* description/.test(message)) return { stage: 'tools', text: message };
      if (/^tools\/(list|call)/.test(message)) return { stage: 'list', text: message };
      return { stage: 'protocol', text: message.replace(/^tool server /, '') };
    }
    default: {
      const kind: never = err.kind;
      return { stage: 'list', text: `${String(kind)}: ${err.message}` };
    }
  }
}

/** What the checker saw on the wire (methods and cursors only; never headers). */
interface Wire {
  methods: string[];
  /** The cursors tools/list was asked for ('' for the first page): the pages followed. */
  cursors: Set<string>;
  /** Content types of the successful (2xx) replies. */
  contentTypes: Set<string>;
}

function observingFetch(base: typeof fetch, wire: Wire): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') {
      try {
        const body = JSON.parse(init.body) as { method?: unknown; params?: { cursor?: unknown } };
        if (typeof body.method === 'string') wire.methods.push(body.method);
        if (body.method === 'tools/list') wire.cursors.add(typeof body.params?.cursor === 'string' ? body.params.cursor : '');
      } catch {
        /* not ours to judge */
      }
    }
    const res = await base(input, init);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== '' && res.status >= 200 && res.status < 300) wire.contentTypes.add(type);
    return res;
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Runs every check, logs a pass/fail table and returns the checks. Never throws for a bad server. */
export async function runMcpCheck(args: McpCheckArgs): Promise<McpCheckResult> {
  const checks: Check[] = [];
  const notChecked: string[] = [];
  // Nothing prints header values by construction; this also masks a server echoing one back
  // (values under 4 characters are left alone: masking them would garble every line).
  const values = Object.values(args.headers ?? {}).filter((v): v is string => typeof v === 'string');
  const secrets = values.flatMap((value) => [value, /^bearer +(.+)$/i.exec(value)?.[1] ?? '']).filter((secret) => secret.length >= 4);
  const clean = (text: string): string => scrub(text, { secrets, minLength: 4 });
  const add = (name: string, ok: boolean, detail: string) => {
    const text = clean(detail);
    checks.push({ name, ok, detail: text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text });
  };
  const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = DEFAULT_MAX_RESPONSE_BYTES;
  const baseFetch: typeof fetch = args.fetch ?? ((input, init) => fetch(input, init));
  const log = (line: string) => args.log(clean(line));

  const auth = authFromHeaders(args.headers ?? {});
  log(`mcp check ${printableUrl(args.url)}${auth.ok ? ` with ${auth.description}` : ''}`);
  const finish = (): McpCheckResult => {
    printTable(checks, notChecked, log);
    return { ok: checks.length > 0 && checks.every((c) => c.ok), checks };
  };

  if (!auth.ok) {
    add(CHECK_NAMES.arguments, false, auth.problem);
    return finish();
  }
  const verdict = toolServerUrlVerdict(args.url);
  if (!verdict.local.ok) {
    add(CHECK_NAMES.url, false, `the gateway refuses this URL: ${verdict.local.message}`);
  } else if (!verdict.deployed.ok) {
    log(
      `note: plain http:// on loopback — the local stack (npm run dev, DEV_LOOPBACK_TARGETS=1) registers it; a deployed gateway refuses it (${verdict.deployed.message})`,
    );
  }

  const wire: Wire = { methods: [], cursors: new Set(), contentTypes: new Set() };
  let client: McpClient;
  try {
    client = createMcpClient({
      url: args.url,
      auth: auth.auth,
      timeoutMs,
      maxResponseBytes: maxBytes,
      fetch: observingFetch(baseFetch, wire),
    });
  } catch (err) {
    add(CHECK_NAMES.arguments, false, (err instanceof Error ? err.message : String(err)).replace(/^MCP client: /, ''));
    return finish();
  }
  const credential = auth.auth.type !== 'none';
  const ctx = { timeoutMs, maxBytes, credential };

  try {
    // (a) + (c): tools/list with the given credential (what registration runs); (b) the tools.
    const started = Date.now();
    let tools: Tool[] | undefined;
    let listError: McpError | undefined;
    try {
      tools = await client.listTools();
    } catch (err) {
      listError =
        err instanceof McpError
          ? err
          : new McpError('bad_response', `unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
    }
    const ms = Date.now() - started;
    // Whether tools/list itself worked (a defective tool definition still counts as an answer).
    const answered = listError === undefined || describeError(listError, ctx).stage === 'tools';
    if (tools !== undefined) {
      const session = wire.methods.includes('initialize') ? ', after an MCP initialize handshake' : '';
      add(CHECK_NAMES.list, true, `${plural(tools.length, 'tool')} on ${plural(wire.cursors.size, 'page')} in ${ms} ms${session}`);
      add(CHECK_NAMES.protocol, true, protocolSummary(wire, timeoutMs, maxBytes));
      const problems = toolProblems(tools);
      add(
        CHECK_NAMES.tools,
        problems.length === 0,
        problems.length === 0 ? `${plural(tools.length, 'tool')}: names, MCP tool shape, valid schemas` : problems.join('; '),
      );
    } else if (listError !== undefined) {
      const defect = describeError(listError, ctx);
      if (defect.stage === 'tools') {
        add(CHECK_NAMES.list, true, 'answered with a tools array');
        add(CHECK_NAMES.protocol, true, protocolSummary(wire, timeoutMs, maxBytes));
        add(CHECK_NAMES.tools, false, defect.text);
      } else if (defect.stage === 'protocol') {
        add(CHECK_NAMES.list, false, 'no usable tools/list reply (see JSON-RPC reply)');
        add(CHECK_NAMES.protocol, false, defect.text);
        notChecked.push(CHECK_NAMES.tools);
      } else {
        add(CHECK_NAMES.list, false, defect.text);
        notChecked.push(CHECK_NAMES.protocol, CHECK_NAMES.tools);
      }
    }

    // (d) tools/call round trip.
    if (args.call) {
      if (!answered) {
        notChecked.push(CHECK_NAMES.call);
      } else {
        add(`${CHECK_NAMES.call} ${args.call.name}`, ...(await checkCall(client, args.call, tools, ctx)));
      }
    }

    // (e) a wrong credential must get 401.
    if (credential) {
      if (!answered) {
        notChecked.push(CHECK_NAMES.wrongCredential);
      } else {
        add(CHECK_NAMES.wrongCredential, ...(await checkWrongCredential(args.url, auth.auth, ctx, baseFetch)));
      }
    }
  } finally {
    await client.close();
  }
  return finish();
}

function protocolSummary(wire: Wire, timeoutMs: number, maxBytes: number): string {
  const types = [...wire.contentTypes].join(', ') || 'no content type';
  return `JSON-RPC 2.0 (${types}), ids match, no redirect, within ${timeoutMs} ms and ${formatBytes(maxBytes)}`;
}

/** Every defective tool by name, under the gateway's own acceptance rule; then the snapshot limits. */
function toolProblems(tools: Tool[]): string[] {
  const problems = toolListProblems(tools).map(({ tool, problem }) => {
    const line = `tool "${tool.slice(0, 100)}": ${problem}`;
    return line.length > MAX_TOOL_PROBLEM ? `${line.slice(0, MAX_TOOL_PROBLEM)}…` : line;
  });
  const snapshot = checkSnapshot(tools);
  if (!snapshot.ok) problems.push(snapshot.problem);
  return problems;
}

async function checkCall(
  client: McpClient,
  call: NonNullable<McpCheckArgs['call']>,
  tools: Tool[] | undefined,
  ctx: { timeoutMs: number; maxBytes: number; credential: boolean },
): Promise<[boolean, string]> {
  if (tools !== undefined) {
    const tool = tools.find((t) => t.name === call.name);
    if (tool === undefined)
      return [false, `tools/list has no tool "${call.name}" (it lists ${tools.map((t) => t.name).join(', ') || 'none'})`];
    const valid = validateArguments(tool.inputSchema, call.arguments);
    if (!valid.ok) return [false, `the arguments do not match the tool's input schema: ${valid.problems.join('; ')}`];
  }
  const started = Date.now();
  try {
    const result = await client.callTool(call.name, call.arguments);
    const ms = Date.now() - started;
    const first = result.content[0];
    const preview =
      first === undefined
        ? 'empty'
        : first.type === 'text' && typeof first.text === 'string'
          ? `text ${JSON.stringify(first.text.slice(0, 80))}`
          : first.type;
    if (result.isError === true) return [false, `the tool reported an error (isError: true): ${preview}`];
    return [true, `content: ${plural(result.content.length, 'item')}, first ${preview}, in ${ms} ms`];
  } catch (err) {
    if (err instanceof McpError) return [false, describeError(err, ctx).text];
    throw err;
  }
}

async function checkWrongCredential(
  url: string,
  auth: McpAuth,
  ctx: { timeoutMs: number; maxBytes: number; credential: boolean },
  baseFetch: typeof fetch,
): Promise<[boolean, string]> {
  const client = createMcpClient({
    url,
    auth: wrongAuth(auth),
    timeoutMs: ctx.timeoutMs,
    maxResponseBytes: ctx.maxBytes,
    fetch: baseFetch,
  });
  try {
    await client.listTools();
    return [false, 'accepts a wrong credential: tools/list answered with a random credential value'];
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    if (err.kind === 'unauthorized' && err.status === 401) return [true, 'a random credential value is answered with 401'];
    if (err.kind === 'unauthorized') return [false, `a wrong credential is answered with ${err.status}; the contract says 401`];
    return [false, `a wrong credential is answered with "${describeError(err, { ...ctx, credential: false }).text}", not 401`];
  } finally {
    await client.close();
  }
}

function printTable(checks: Check[], notChecked: string[], log: (line: string) => void): void {
  const width = Math.max(...checks.map((c) => c.name.length), 10);
  for (const check of checks) log(`  ${check.ok ? 'PASS' : 'FAIL'}  ${check.name.padEnd(width)}  ${check.detail}`);
  if (notChecked.length > 0) log(`  (not checked after that failure: ${notChecked.join(', ')})`);
  const failed = checks.filter((c) => !c.ok).length;
  log(failed === 0 ? `PASS: all ${checks.length} checks passed` : `FAIL: ${failed} of ${checks.length} checks failed`);
}
