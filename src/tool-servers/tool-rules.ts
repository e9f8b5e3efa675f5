/**
 * The one acceptance rule for tool servers, shared by the gateway's registration (and PUT …/auth)
 * and `agent-gateway mcp check`, so the two can never disagree:
 * - a URL: `toolServerUrlVerdict` runs the gateway's own URL rule (./url) under production's
 *   policy and under the local stack's (`DEV_LOOPBACK_TARGETS=1`, loopback http accepted);
 * - a tool list: `toolListProblems` (names unique, MCP's tool shape within the caps below, input
 *   and output schemas valid JSON Schema under ./schema-check's rules) and `checkSnapshot`
 *   (./tool-limits: tools and bytes of the whole list).
 * `description` is optional, as in MCP.
 */
import { PRODUCTION_POLICY } from '../net/outbound-policy';
import { checkToolSchema } from './schema-check';
import { jsonBytes } from './tool-limits';
import type { JsonObject, Tool } from './types';
import { canonicalToolServerUrl, type CanonicalUrlResult } from './url';

export { checkSnapshot } from './tool-limits';

/** Caps of each field of one tool (`invalid_tool_schema` when over). */
export const TOOL_FIELD_LIMITS = {
  nameChars: 200,
  titleChars: 200,
  descriptionChars: 16_384,
  annotationsBytes: 2_048,
  executionBytes: 1_024,
  icons: 8,
  iconsBytes: 32_768,
  metaBytes: 4_096,
} as const;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const TASK_SUPPORT = ['forbidden', 'optional', 'required'];

export interface ToolProblem {
  tool: string;
  problem: string;
}

/** Problems of a tool list, in order, at most `max` (registration stops at the first). */
export function toolListProblems(tools: readonly Tool[], max = Number.POSITIVE_INFINITY): ToolProblem[] {
  const problems: ToolProblem[] = [];
  const names = new Set<string>();
  for (const tool of tools) {
    if (problems.length >= max) break;
    if (names.has(tool.name)) {
      problems.push({ tool: tool.name, problem: 'listed twice' });
      continue;
    }
    names.add(tool.name);
    const problem = toolProblem(tool);
    if (problem !== null) problems.push({ tool: tool.name, problem });
  }
  return problems.slice(0, max);
}

/** The first problem of one tool, or null. */
export function toolProblem(tool: Tool): string | null {
  const L = TOOL_FIELD_LIMITS;
  if (tool.name.length > L.nameChars) return `name is longer than ${L.nameChars} characters`;
  if (tool.title !== undefined && tool.title.length > L.titleChars) return `title is longer than ${L.titleChars} characters`;
  if (tool.description !== undefined && tool.description.length > L.descriptionChars) {
    return `description is longer than ${L.descriptionChars} characters`;
  }
  const input = checkToolSchema(tool.inputSchema);
  if (!input.ok) return input.problem;
  if (tool.outputSchema !== undefined) {
    const output = checkToolSchema(tool.outputSchema);
    if (!output.ok) return output.problem.replace(/^inputSchema/, 'outputSchema');
  }
  return annotationsProblem(tool.annotations) ?? executionProblem(tool.execution) ?? iconsProblem(tool.icons) ?? metaProblem(tool._meta);
}

function annotationsProblem(annotations: JsonObject | undefined): string | null {
  if (annotations === undefined) return null;
  if (jsonBytes(annotations) > TOOL_FIELD_LIMITS.annotationsBytes)
    return `annotations are over ${TOOL_FIELD_LIMITS.annotationsBytes} bytes`;
  if (annotations.title !== undefined && typeof annotations.title !== 'string') return 'annotations.title must be a string';
  for (const hint of HINTS) {
    if (annotations[hint] !== undefined && typeof annotations[hint] !== 'boolean') return `annotations.${hint} must be a boolean`;
  }
  return null;
}

function executionProblem(execution: JsonObject | undefined): string | null {
  if (execution === undefined) return null;
  if (jsonBytes(execution) > TOOL_FIELD_LIMITS.executionBytes) return `execution is over ${TOOL_FIELD_LIMITS.executionBytes} bytes`;
  const task = execution.taskSupport;
  if (task !== undefined && !TASK_SUPPORT.includes(task as string))
    return `execution.taskSupport must be one of ${TASK_SUPPORT.join(', ')}`;
  return null;
}

function iconsProblem(icons: readonly JsonObject[] | undefined): string | null {
  if (icons === undefined) return null;
  if (icons.length > TOOL_FIELD_LIMITS.icons) return `more than ${TOOL_FIELD_LIMITS.icons} icons`;
  return jsonBytes(icons) > TOOL_FIELD_LIMITS.iconsBytes ? `icons are over ${TOOL_FIELD_LIMITS.iconsBytes} bytes` : null;
}

function metaProblem(meta: JsonObject | undefined): string | null {
  if (meta === undefined) return null;
  return jsonBytes(meta) > TOOL_FIELD_LIMITS.metaBytes ? `_meta is over ${TOOL_FIELD_LIMITS.metaBytes} bytes` : null;
}

/** A URL under both policies: what a deployed gateway does, and what the local stack does. */
export interface UrlVerdict {
  deployed: CanonicalUrlResult;
  /** The local stack with its default `DEV_LOOPBACK_TARGETS=1`. */
  local: CanonicalUrlResult;
}

export function toolServerUrlVerdict(url: string): UrlVerdict {
  return {
    deployed: canonicalToolServerUrl(url, PRODUCTION_POLICY),
    local: canonicalToolServerUrl(url, { ...PRODUCTION_POLICY, loopbackTargets: true }),
  };
}
