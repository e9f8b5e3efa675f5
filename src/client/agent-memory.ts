/** Searching an agent's memory: one page, every page, every hit. */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type { MemorySearch, MemorySearchHit, MemorySearchPage } from './types';

export interface MemoryMethods {
  /**
   * `POST …/memory/search` (operationId `searchMemory`): one page of hits across the agent's
   * contexts, best first; pass `nextCursor` as `cursor` with the same query and filters to read on.
   */
  searchMemory(request: MemorySearch, options?: CallOptions): Promise<MemorySearchPage>;
  /** The same as `searchMemory`. */
  search(request: MemorySearch, options?: CallOptions): Promise<MemorySearchPage>;
  /** Every page of a search, following `nextCursor` from the start (or from `request.cursor`). */
  searchPages(request: MemorySearch, options?: CallOptions): AsyncGenerator<MemorySearchPage, void, undefined>;
  /** Every hit of a search, best first, across all pages. */
  searchHits(request: MemorySearch, options?: CallOptions): AsyncGenerator<MemorySearchHit, void, undefined>;
}

export function memoryMethods(agent: AgentCalls): MemoryMethods {
  const self: MemoryMethods = {
    searchMemory: (request, o = {}) => agent.json('searchMemory', {}, { body: request, signal: o.signal }),
    search: (request, o = {}) => self.searchMemory(request, o),
    async *searchPages(request, o = {}) {
      let cursor = request.cursor;
      for (;;) {
        const page = await self.searchMemory({ ...request, cursor }, o);
        yield page;
        if (page.nextCursor === null || page.hits.length === 0) return;
        cursor = page.nextCursor;
      }
    },
    async *searchHits(request, o = {}) {
      for await (const page of self.searchPages(request, o)) yield* page.hits;
    },
  };
  return self;
}
