/**
 * Output of the CLI. Everything printed goes through `out` (results, stdout) or `err`
 * (diagnostics, progress, stderr), and both scrub every registered secret (tokens, private keys,
 * keystore passwords, header values); `err` also anything shaped like a JWT. The deliberate
 * exceptions: `login --print-token` writes the token with `rawOut`, and `messages export` writes
 * the stored messages unchanged (they are the user's data).
 */
import { getAddress, isAddress } from 'viem';
import { GatewayError } from '../client/errors';
import { scrub } from '../scrub';

const secrets = new Set<string>();

/** Registers a value that must never be printed (values shorter than 8 characters are ignored). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) {
    secrets.add(value);
    // A private key may be printed with or without its 0x.
    if (/^0x[0-9a-fA-F]{64}$/.test(value)) secrets.add(value.slice(2));
  }
}

/** Scrubs registered secrets; with `jwtShapes` (diagnostics) also anything shaped like a JWT. */
export function scrubRegistered(text: string, jwtShapes = true): string {
  return scrub(text, { secrets, jwts: jwtShapes });
}

export interface Io {
  /** A result line on stdout. */
  out(line: string): void;
  /** A diagnostic line on stderr. */
  err(line: string): void;
  /** Unscrubbed stdout: only for `login --print-token`. */
  rawOut(text: string): void;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Read only by options that take a secret from stdin (`mcp check --header-stdin`). */
  stdin: NodeJS.ReadStream;
}

export function processIo(): Io {
  return {
    // Results are data (keys, tables): only registered secrets are scrubbed from them.
    out: (line) => void process.stdout.write(`${scrubRegistered(line, false)}\n`),
    err: (line) => void process.stderr.write(`${scrubRegistered(line)}\n`),
    rawOut: (text) => void process.stdout.write(text),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  };
}

/** Exit code 3: refused for safety (e.g. a sign-in message that is not for the gateway asked). */
export const EXIT_REFUSED = 3;

/** A failure the user has to act on: printed as `agent-gateway: <message>`, exit `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Exit code 2: the command line itself is wrong. */
export class UsageError extends CliError {
  constructor(
    message: string,
    readonly helpHint?: string,
  ) {
    super(message, 2);
  }
}

/** One line for a failed gateway call: `<status> <code>: <message> (request <id>)`. */
export function describeGatewayError(err: GatewayError): string {
  const status = err.status === 0 ? '' : `${err.status} `;
  const request = err.requestId ? ` (request ${err.requestId})` : '';
  const issues = validationIssues(err.details);
  return `${status}${err.code}: ${err.message}${issues}${request}`;
}

function validationIssues(details: unknown): string {
  const issues = (details as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return '';
  const text = issues
    .slice(0, 3)
    .map(
      (i: { path?: unknown; message?: unknown }) =>
        `${typeof i.path === 'string' && i.path ? `${i.path}: ` : ''}${String(i.message ?? '')}`,
    )
    .join('; ');
  return ` [${text}${issues.length > 3 ? '; …' : ''}]`;
}

/** Any thrown value as one printable line (never a stack). */
export function describeError(err: unknown): string {
  if (err instanceof GatewayError) return describeGatewayError(err);
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A table as table commands print it on stdout (`usage`, `audit`): the first row is the header,
 * columns are aligned two spaces apart, those in `rightAligned` (numbers) padded on the left.
 */
export function alignedTable(rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number> = new Set()): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    widths
      .map((width, i) => (rightAligned.has(i) ? (r[i] ?? '').padStart(width) : (r[i] ?? '').padEnd(width)))
      .join('  ')
      .trimEnd(),
  );
}

/** A wallet address as `whoami` prints it: checksummed (EIP-55); anything else unchanged. */
export function checksummed(address: string): string {
  return isAddress(address, { strict: false }) ? getAddress(address) : address;
}
