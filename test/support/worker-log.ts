/**
 * The workers' log as tests read it: the JSON request lines (src/http/request-log.ts) of a log
 * file written by `startMiniflare({ logFile })`, and the scan for secrets that the harness runs
 * over the whole suite's log (global-setup.ts) once every test file is done.
 */
import { readFile } from 'node:fs/promises';
import type { RequestLogLine } from '../../src/http/request-log';
import { JWT_SHAPE } from '../../src/scrub';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Shapes of the credentials the suite uses, none of which a log line may hold: access tokens,
 * agent keys, the values tests plant (`SECRET-<label>-<uuid>`), the API keys and bearer tokens
 * tests give models and tool servers (`sk-standin-<uuid>`, `plain-key-<uuid>`, `sdk-bearer-<uuid>`),
 * and a database URL's password.
 */
export const SECRET_SHAPES: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'access token (JWT)', pattern: new RegExp(JWT_SHAPE.source) },
  { kind: 'agent key', pattern: /agk_[a-z2-7]{32}/ },
  { kind: 'planted secret', pattern: new RegExp(`SECRET-[\\w-]*?${UUID}`) },
  { kind: 'test API key or bearer token', pattern: new RegExp(`\\b(?:sk|[a-z]+-(?:key|bearer))-(?:[a-z]+-)*${UUID}`, 'i') },
  { kind: 'database URL with its password', pattern: /postgres(?:ql)?:\/\/[^/\s:@]+:(?!\*\*\*@)[^@\s]+@/ },
];

export interface SecretFinding {
  /** 1-based line of the log. */
  line: number;
  kind: string;
}

/** Where `text` holds a secret: one of `values` (exact, 8 characters or more) or a `SECRET_SHAPES` match. */
export function secretsInLog(text: string, values: readonly string[] = []): SecretFinding[] {
  const exact = values.filter((v) => v.length >= 8);
  const findings: SecretFinding[] = [];
  text.split('\n').forEach((content, i) => {
    for (const value of exact) if (content.includes(value)) findings.push({ line: i + 1, kind: 'harness secret' });
    for (const { kind, pattern } of SECRET_SHAPES) if (pattern.test(content)) findings.push({ line: i + 1, kind });
  });
  return findings;
}

/** The request log lines of a log's text, in order. */
export function requestLines(text: string): RequestLogLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{"level":') && line.includes('"event":"request"'))
    .map((line) => JSON.parse(line) as RequestLogLine);
}

/** The request line of `requestId` in the log file, once it is there (a streamed reply's comes when its stream ends). */
export async function requestLineOf(file: string, requestId: string, timeoutMs = 5_000): Promise<RequestLogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const line = requestLines(text).find((l) => l.requestId === requestId);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no request line for ${requestId} in ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
