/**
 * The collections registered on the deployment (GET /collections), asked once when nothing else
 * named a collection for the agent picker: the only one is the picker's start, several are offered
 * as choices. A failure leaves the picker as it was (the user types the address, as before) and is
 * written to the console as a warning, so that it is seen in the developer tools and by the tests.
 */
import { useEffect, useState } from 'hono/jsx/dom';
import type { GatewayClient } from '../../client';

export interface RegisteredCollections {
  /** The deployment's only collection, when it has exactly one. */
  only: string | undefined;
  /** Its collections, when it has several (by address); empty otherwise. */
  choices: string[];
}

export function useRegisteredCollections(wallet: GatewayClient, wanted: boolean): RegisteredCollections {
  const [found, setFound] = useState<RegisteredCollections>({ only: undefined, choices: [] });
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    wallet.listCollections().then(
      ({ collections }) => {
        if (!current) return;
        const addresses = collections.map((c) => c.address);
        setFound(addresses.length === 1 ? { only: addresses[0], choices: [] } : { only: undefined, choices: addresses });
      },
      (err: unknown) => {
        if (current) console.warn('The registered collections could not be listed; the picker starts empty.', err);
      },
    );
    return () => {
      current = false;
    };
  }, [wallet, wanted]);
  return found;
}
