/**
 * The slot for the wallet's own tokens of a collection (ERC-721 Enumerable), listed under the
 * picker's form: the `owned` endpoint (issue 26) is wired in here at merge. Until then it shows
 * nothing; it calls `onPick` with a token id when one is chosen.
 */
export function OwnedTokens(_props: { collection: string; walletAddress: string; onPick: (tokenId: string) => void }) {
  return null;
}
