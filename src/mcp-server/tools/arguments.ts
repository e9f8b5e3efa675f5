/** Argument checks the built-in tools share: context keys and messages by the contexts' own rules. */
import { z } from 'zod';
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_PROBLEM_TEXT, messageProblems } from '../../contexts/rules';
import { AppError } from '../../errors';
import { textResult, type ServedCall } from '../served-tool';

export const ContextKeyArg = z.string().superRefine((key, ctx) => {
  const problem = keyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: `contextKey ${KEY_PROBLEM_TEXT[problem]}` });
});

export const MessageArg = z.string().superRefine((text, ctx) => {
  for (const problem of messageProblems(text)) ctx.addIssue({ code: 'custom', message: `message ${MESSAGE_PROBLEM_TEXT[problem]}` });
});

/** A refused or failed built-in call as an error result: the code first, as the REST route would say it. */
export function failure(err: unknown): ServedCall {
  if (err instanceof z.ZodError) {
    const issues = err.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return { result: textResult(`validation_failed: ${issues}`, true), outcome: 'validation_failed' };
  }
  if (err instanceof AppError) return { result: textResult(`${err.code}: ${err.message}`, true), outcome: err.code };
  return { result: textResult('internal_error: the tool failed', true), outcome: 'internal_error' };
}
