/**
 * The wallet's own tokens of the collection typed above (GET /wallet/collections/{c}/tokens),
 * and the agents it may use there as a delegate (each says so, with its owner), listed under the
 * picker's form as buttons that fill in the token id. Asked once the address is
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
  return (
    <>
      <OwnList owned={owned} onPick={props.onPick} />
      <DelegatedList owned={owned} onPick={props.onPick} />
    </>
  );
}

function OwnList({ owned, onPick }: { owned: Owned; onPick: (tokenId: string) => void }) {
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
            <button type="button" class="chip" onClick={() => onPick(t.tokenId)}>
              #{t.tokenId}
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** The agents other wallets delegated to this one (delegate.xyz), each named as such with its owner. */
function DelegatedList({ owned, onPick }: { owned: Owned; onPick: (tokenId: string) => void }) {
  if (owned.delegated.length === 0) {
    return owned.delegatedTruncated ? (
      <p class="muted">A wallet lets yours act for its tokens of this collection, but they cannot be listed: type the token id.</p>
    ) : null;
  }
  return (
    <fieldset class="owned">
      <legend>Agents you may use as a delegate{owned.delegatedTruncated ? ' (not all: type the token id of others)' : ''}</legend>
      <ul class="chips">
        {owned.delegated.map((t) => (
          <li>
            <button type="button" class="chip" title={`Owned by ${t.owner}`} onClick={() => onPick(t.tokenId)}>
              #{t.tokenId} as delegate of {short(t.owner)}
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
