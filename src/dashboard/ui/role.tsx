/**
 * How the wallet reaches the picked agent (GET /agent's `role`: owner, the owner's delegate, the
 * token's renter) and, for a delegate, whether the owner lets delegates administer it: one
 * request to an administering read (the prompt templates' list) answers it, 403 `not_owner`
 * meaning use only. The shell uses it to say on each page what the wallet may not see, instead of
 * letting every page fail on its own.
 */
import { useEffect, useState } from 'hono/jsx/dom';
import { type AgentClient, GatewayError } from '../../client';
import type { Reach } from './reach';

export { type PageNeed, type Reach, refusal } from './reach';

/** The wallet's reach of the agent, undefined while asked (or when the gateway did not say: pages then try on their own). */
export function useReach(agent: AgentClient | undefined): Reach | undefined {
  const [reach, setReach] = useState<Reach | undefined>(undefined);
  useEffect(() => {
    setReach(undefined);
    if (!agent) return;
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      const { role } = await agent.getAgent({ signal });
      if (role !== 'delegate') return { role, admin: role === 'owner' };
      try {
        await agent.listPromptTemplates({ limit: 1 }, { signal });
        return { role, admin: true };
      } catch (err) {
        if (err instanceof GatewayError && err.code === 'not_owner') return { role, admin: false };
        throw err;
      }
    })().then(
      (answer) => {
        if (!signal.aborted) setReach(answer);
      },
      () => undefined, // a failure shows on the page itself, which asks again
    );
    return () => controller.abort();
  }, [agent]);
  return reach;
}

/** The page's place, with the refusal in words and a way back to what the wallet may use. */
export function NotAllowed(props: { title: string; text: string; onUse: () => void }) {
  return (
    <section class="card" aria-labelledby="not-allowed-title">
      <h1 id="not-allowed-title">{props.title}</h1>
      <p class="notice warn" id="not-allowed">
        {props.text}
      </p>
      <button type="button" onClick={props.onUse}>
        Open the memory
      </button>
    </section>
  );
}
