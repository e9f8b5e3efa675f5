/**
 * Token counting for the request budget (DESIGN §11), conservative by design: no tokenizer ships
 * in the worker, so a text counts as ceil(UTF-8 bytes / 3) tokens (real tokenizers average 3.5 to
 * 4.5 bytes a token on English and code; 3 leaves room for other scripts), and each message adds
 * `MESSAGE_OVERHEAD_TOKENS` for its role and framing. The tools' schemas count as their JSON text.
 */

export const MESSAGE_OVERHEAD_TOKENS = 8;

const encoder = new TextEncoder();

/** Tokens a text counts for: ceil(UTF-8 bytes / 3). */
export function countTokens(text: string): number {
  return Math.ceil(encoder.encode(text).byteLength / 3);
}

/** Tokens a message counts for: its text plus the per-message overhead. */
export function messageTokens(text: string): number {
  return countTokens(text) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * The newest messages that fit `budget` tokens, oldest first: cut from the oldest, and the newest
 * message always goes (even over the budget). Messages are given oldest first.
 */
export function trimToBudget<T extends { message: string }>(messages: readonly T[], budget: number): { kept: T[]; dropped: number } {
  let used = 0;
  let first = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const cost = messageTokens(messages[i]!.message);
    if (i < messages.length - 1 && used + cost > budget) break;
    used += cost;
    first = i;
  }
  return { kept: messages.slice(first), dropped: first };
}
