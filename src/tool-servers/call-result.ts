/**
 * A tool result as the gateway answers it: content items in MCP's content union (anything else is
 * outside the contract, 502 `tool_server_error`), and `structuredContent` checked against the
 * tool's `outputSchema` when it has one, with the validator and work budget of the arguments
 * (./schema-check): a mismatch is 502 `tool_output_invalid`. A result with `isError: true` is not
 * held to the output schema (MCP: errors carry no structured result).
 */
import type { z } from '@hono/zod-openapi';
import { AppError } from '../errors';
import type { CallResult, Tool } from './client';
import { ToolResultSchema } from './mcp.schemas';
import { validateArguments } from './schema-check';

export type ToolCallResult = z.infer<typeof ToolResultSchema>;

export function checkCallResult(tool: Tool, result: CallResult): ToolCallResult {
  const parsed = ToolResultSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.slice(0, 6).join('.')}`;
    throw new AppError('tool_server_error', `The tool server gave an unusable answer: the result is not MCP's tool result shape${where}`, {
      details: { reason: 'bad_response' },
    });
  }
  if (tool.outputSchema === undefined || parsed.data.isError === true) return parsed.data;
  const structured = parsed.data.structuredContent;
  if (structured === undefined) {
    throw new AppError('tool_output_invalid', `The tool ${tool.name} declares an outputSchema but its result has no structuredContent`, {
      details: { problems: ['structuredContent is missing'] },
    });
  }
  const valid = validateArguments(tool.outputSchema, structured);
  if (!valid.ok) {
    const message = valid.tooCostly
      ? `The result of ${tool.name} takes too much work to check against its output schema`
      : `The result of ${tool.name} does not match its output schema`;
    throw new AppError('tool_output_invalid', message, { details: { problems: valid.problems } });
  }
  return parsed.data;
}
