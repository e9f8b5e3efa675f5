/**
 * The words of a summary, defined once: the instruction that makes a model request a
 * summary request (the stand-in model, scripts/lib/standin-llm.ts, recognises it by this text),
 * the transcript the summarised messages are sent as, and the header of the summary a reply sends.
 * No imports: the stand-in loads this file as it is.
 */

/** The system message of every summary request. */
export const SUMMARY_INSTRUCTION =
  'You write the running summary of a conversation for the agent that takes part in it. The user message holds the summary ' +
  'so far (if any) and the messages to add, oldest first, each as "#<id> <role>: <text>". Write one updated summary of all ' +
  'of it: the facts, names, numbers, identifiers, decisions, open questions and what each side asked for or promised. ' +
  'Plain text, no preamble, as short as the content allows.';

/** What opens the summary so far in the transcript. */
export const SUMMARY_SO_FAR = 'Summary so far:';

/** What opens the messages to add in the transcript. */
export const MESSAGES_TO_ADD = 'Messages to add:';

/** One summarised message in the transcript. */
export const transcriptEntry = (message: { id: number; role: string; message: string }): string =>
  `#${message.id} ${message.role}: ${message.message}`;

/** The user message of a summary request: the summary so far (if any), then the messages to add. */
export function summaryTranscript(previous: string | null, entries: readonly string[]): string {
  const head = previous === null ? '' : `${SUMMARY_SO_FAR}\n${previous}\n\n`;
  return `${head}${MESSAGES_TO_ADD}\n${entries.join('\n\n')}`;
}

/** What a reply sends as the system message after the prompt template: the context's summary under this header. */
export const summaryMessage = (summary: string): string => `Summary of the earlier messages of this conversation:\n${summary}`;
