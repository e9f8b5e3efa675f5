/**
 * Step 1 of a hydration (the CLI's `agent-gateway hydrate`, src/cli/hydrate-run.ts, and the
 * dashboard's upload, src/dashboard/memory/hydrate.ts): every line of a JSONL file (`{ "key", "role",
 * "message" }`) is checked locally with the gateway's own rules (src/contexts/rules.ts); invalid
 * lines are reported with their line numbers and never sent. Blank lines are skipped. Plain
 * string work: Node and browsers alike (the file's id, a sha256, is each side's to compute).
 */
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_PROBLEM_TEXT, messageProblems, ROLES } from '../contexts/rules';

type Role = (typeof ROLES)[number];

export interface HydrateRecord {
  /** 1-based line number in the file. */
  line: number;
  key: string;
  role: Role;
  message: string;
}

/** A line that was not stored, with why; the fields of the line when it was a JSON object. */
export interface FailedLine {
  line: number;
  reason: string;
  key?: unknown;
  role?: unknown;
  message?: unknown;
  /** The line as it was, when it was not a JSON object. */
  raw?: string;
}

export interface HydrateFile {
  /** First 16 hex digits of the sha256 of the file's bytes. */
  fileId: string;
  /** Non-blank lines. */
  lineCount: number;
  records: HydrateRecord[];
  invalid: FailedLine[];
}

const ROLE_SET = new Set<string>(ROLES);

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Why one parsed line cannot be sent, or null. */
function lineProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { key, role, message } = value;
  if (typeof key !== 'string') problems.push(key === undefined ? 'key: missing' : 'key: must be a string');
  else {
    const problem = keyProblem(key);
    if (problem) problems.push(`key: ${KEY_PROBLEM_TEXT[problem]}`);
  }
  if (typeof role !== 'string' || !ROLE_SET.has(role)) {
    problems.push(role === undefined ? 'role: missing' : `role: must be one of ${ROLES.join(', ')} (got ${shortJson(role)})`);
  }
  if (typeof message !== 'string') problems.push(message === undefined ? 'message: missing' : 'message: must be a string');
  else for (const problem of messageProblems(message)) problems.push(`message: ${MESSAGE_PROBLEM_TEXT[problem]}`);
  return problems;
}

/** The file's id from the hex sha256 of its bytes: its first 16 hex digits (the batches' Idempotency-Keys carry it). */
export function fileIdOf(sha256Hex: string): string {
  return sha256Hex.slice(0, 16);
}

/** Reads and checks every line of a file whose id is `fileId` (`fileIdOf` its sha256); nothing is sent. */
export function parseHydrateContent(content: Uint8Array | string, fileId: string): HydrateFile {
  const text = typeof content === 'string' ? content : new TextDecoder().decode(content);
  const lines = text.split('\n');
  const records: HydrateRecord[] = [];
  const invalid: FailedLine[] = [];
  let lineCount = 0;
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i]!;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (i === 0 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    lineCount++;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      invalid.push({ line, reason: `invalid JSON (${err instanceof Error ? err.message : 'parse error'})`, raw });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      invalid.push({ line, reason: 'not a JSON object with key, role and message', raw });
      continue;
    }
    const object = value as Record<string, unknown>;
    const problems = lineProblems(object);
    if (problems.length > 0) {
      invalid.push({ line, reason: problems.join('; '), key: object.key, role: object.role, message: object.message });
      continue;
    }
    records.push({ line, key: object.key as string, role: object.role as Role, message: object.message as string });
  }
  return { fileId, lineCount, records, invalid };
}
