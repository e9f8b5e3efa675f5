import type { FC } from 'hono/jsx';
import type { AgentClient } from '../../client';
import type { PageNeed } from '../ui/role';

/** What every agent page gets from the shell (src/dashboard/app.tsx). */
export interface PageProps {
  /** The picked agent's typed client: every call goes through it (its token is the tab's). */
  agent: AgentClient;
  /** The wallet logged in (EIP-55 as the gateway returned it). */
  walletAddress: string;
  /** The location hash after `#/<path>/`, split on `/` and decoded: e.g. a context key. */
  params: string[];
  /** Moves to another page: `navigate('memory', key)` is `#/memory/<key>`. */
  navigate: (path: string, ...params: string[]) => void;
}

/** One entry of the page list in main.tsx: the nav shows `title`, `#/<path>` opens `Page`. */
export interface PageEntry {
  path: string;
  title: string;
  Page: FC<PageProps>;
  /**
   * What the wallet needs to open it (default `use`): a delegate or renter of the agent sees, in
   * place of a page beyond its reach, why not (the owner's access choice in the LLM settings).
   */
  need?: PageNeed;
}
