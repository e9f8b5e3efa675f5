/** Argument checks the built-in tools share (context keys and messages by the contexts' own rules), and their refusals. */
import { z } from 'zod';
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_PROBLEM_TEXT, messageProblems } from '../contexts/rules';
import { AppError } from '../errors';
import { type ToolOutcome, textOutcome } from './tool';

export const ContextKeyArg = z.string().superRefine((key, ctx) => {
  const problem = keyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: `contextKey ${KEY_PROBLEM_TEXT[problem]}` });
});

export const MessageArg = z.string().superRefine((text, ctx) => {
  for (const problem of messageProblems(text)) ctx.addIssue({ code: 'custom', message: `message ${MESSAGE_PROBLEM_TEXT[problem]}` });
});

/**
 * A refused or failed built-in call as an error result: the code first, as the REST route would
 * say it. `internal` is the text of a failure that is neither (`internal_error: …`).
 */
export function refusal(err: unknown, internal = 'the tool failed'): ToolOutcome {
  if (err instanceof z.ZodError) {
    const issues = err.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return textOutcome(`validation_failed: ${issues}`, true, 'validation_failed');
  }
  if (err instanceof AppError) return textOutcome(`${err.code}: ${err.message}`, true, err.code);
  return textOutcome(`internal_error: ${internal}`, true, 'internal_error');
}
