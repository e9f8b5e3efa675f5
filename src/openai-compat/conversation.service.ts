/** The chat-completions conversation a caller that names none talks in. Knows nothing of HTTP. */

/** The context of a caller that names none: `openai/{keyId}` for an agent key, `openai/{wallet}` for the owner's token. */
export function defaultConversation(caller: { keyId: string } | { wallet: string }): string {
  return `openai/${'keyId' in caller ? caller.keyId : caller.wallet}`;
}
