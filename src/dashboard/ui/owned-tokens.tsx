/**
 * The wallet's own tokens of the collection typed above (GET /wallet/collections/{c}/tokens),
 * listed under the picker's form as buttons that fill in the token id. Asked once the address is
 * well formed; a collection that is not ERC-721 Enumerable says so (type the id instead), and a
 * refusal shows in words with its code without blocking the form.
 */
import { useEffect, useState } from 'hono/jsx/dom';
import type { GatewayClient, OwnedTokens as Owned } from '../../client';
import { type Problem, problemOf } from './errors';
import { ErrorNotice } from './notice';

const WELL_FORMED = /^0x[0-9a-fA-F]{40}$/;

export function OwnedTokens(props: { wallet: GatewayClient; collection: string; onPick: (tokenId: string) => void }) {
  const [owned, setOwned] = useState<Owned | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const { wallet, collection } = props;

  useEffect(() => {
    setOwned(undefined);
    setProblem(undefined);
    if (!WELL_FORMED.test(collection)) return;
    let current = true;
    wallet.listOwnedTokens(collection).then(
      (answer) => {
        if (current) setOwned(answer);
      },
      (err: unknown) => {
        if (current) setProblem(problemOf(err));
      },
    );
    return () => {
      current = false;
    };
  }, [wallet, collection]);

  if (problem) return <ErrorNotice problem={problem} />;
  if (!owned) return null;
  if (!owned.enumerable) {
    return <p class="muted">This collection does not list its holders (not ERC-721 Enumerable): type the token id.</p>;
  }
  if (owned.tokens.length === 0) return <p class="muted">Your wallet holds no token of this collection.</p>;
  return (
    <fieldset class="owned">
      <legend>Your tokens in this collection{owned.truncated ? ` (the first ${owned.tokens.length})` : ''}</legend>
      <ul class="chips">
        {owned.tokens.map((t) => (
          <li>
            <button type="button" class="chip" onClick={() => props.onPick(t.tokenId)}>
              #{t.tokenId}
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
