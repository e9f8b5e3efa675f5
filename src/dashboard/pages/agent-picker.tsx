/**
 * Pick an agent: collection address and token id, checked here in words, then by the gateway's
 * three gates (GET /agent/{c}/{t}: registered collection, on-chain owner). The wallet's own
 * tokens of the collection are listed in the `OwnedTokens` slot. The collection starts as the
 * agent picked last in this tab, else the one the page's address names, else the one this browser
 * opened last, else the deployment's only registered collection (several are offered as the
 * field's choices, none chosen): the owner of a deployment's agents rarely types it.
 */
import { useEffect, useState } from 'hono/jsx/dom';
import type { GatewayClient } from '../../client';
import { lastCollection, type PickedAgent } from '../session';
import { type Problem, problemOf } from '../ui/errors';
import { Field } from '../ui/field';
import { ErrorNotice, Status } from '../ui/notice';
import { OwnedTokens } from '../ui/owned-tokens';
import { useRegisteredCollections } from '../ui/registered-collections';

const MAX_TOKEN_ID = 2n ** 256n;

export function collectionProblem(value: string): string | undefined {
  if (value === '') return 'Enter the collection address.';
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return 'A collection address is 0x followed by 40 hexadecimal digits.';
  return undefined;
}

export function tokenIdProblem(value: string): string | undefined {
  if (value === '') return 'Enter the token id.';
  if (!/^(0|[1-9][0-9]*)$/.test(value)) return 'A token id is a whole number written in decimal, without sign or leading zeros.';
  if (BigInt(value) >= MAX_TOKEN_ID) return 'A token id is below 2^256.';
  return undefined;
}

/**
 * The collection the dashboard's address names (`/app?collection=0x…`, as the dev stack's banner
 * and a deployment's own links give it), when it is one: the picker starts with it filled in.
 */
export function collectionFromAddress(search: string): string | undefined {
  const named = new URLSearchParams(search).get('collection')?.trim() ?? '';
  return collectionProblem(named) === undefined ? named : undefined;
}

const validOrUndefined = (value: string | undefined) => (value !== undefined && collectionProblem(value) === undefined ? value : undefined);

export function AgentPicker(props: {
  initial: PickedAgent | undefined;
  /** The wallet's client with the tab's token: the picked agent's client, and the wallet's own tokens. */
  wallet: GatewayClient;
  onPick: (agent: PickedAgent) => void;
}) {
  const [named] = useState(() => props.initial?.collection ?? collectionFromAddress(location.search) ?? validOrUndefined(lastCollection()));
  const [collection, setCollection] = useState(named ?? '');
  const registered = useRegisteredCollections(props.wallet, named === undefined);
  useEffect(() => {
    // The only registered collection, unless the user has typed something meanwhile.
    const only = registered.only;
    if (only !== undefined) setCollection((typed) => (typed === '' ? only : typed));
  }, [registered.only]);
  const [tokenId, setTokenId] = useState(props.initial?.tokenId ?? '');
  const [shown, setShown] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const errors = { collection: collectionProblem(collection.trim()), tokenId: tokenIdProblem(tokenId.trim()) };

  const open = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setProblem(undefined);
    if (errors.collection || errors.tokenId) return;
    const agent = { collection: collection.trim(), tokenId: tokenId.trim() };
    setBusy(true);
    try {
      await props.wallet.agent(agent.collection, agent.tokenId).getAgent();
      props.onPick(agent);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card narrow" aria-labelledby="pick-title">
      <h1 id="pick-title">Pick an agent</h1>
      <form onSubmit={(e: Event) => void open(e)} novalidate>
        <Field
          label="Collection address"
          name="collection"
          value={collection}
          onInput={setCollection}
          placeholder="0x…"
          error={shown ? errors.collection : undefined}
          list={registered.choices.length > 0 ? 'registered-collections' : undefined}
          hint={
            registered.choices.length > 0
              ? `This deployment serves ${registered.choices.length} collections: choose one from the field's list.`
              : undefined
          }
        />
        {registered.choices.length > 0 ? (
          <datalist id="registered-collections">
            {registered.choices.map((address) => (
              <option value={address} />
            ))}
          </datalist>
        ) : null}
        <Field
          label="Token id"
          name="tokenId"
          value={tokenId}
          onInput={setTokenId}
          inputmode="numeric"
          error={shown ? errors.tokenId : undefined}
        />
        <OwnedTokens wallet={props.wallet} collection={collection.trim()} onPick={setTokenId} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Open agent'}
        </button>
      </form>
      <Status text={busy ? 'Checking the agent with the gateway…' : undefined} />
      <ErrorNotice problem={problem} />
    </section>
  );
}
