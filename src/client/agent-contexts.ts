/** An agent's contexts: their keys, their messages (one page, or every page), their summaries. */
import type { AgentCalls } from './agent-calls';
import { GatewayError } from './errors';
import type { CallOptions } from './options';
import type {
  AppendedMessage,
  AppendedMessages,
  AppendOptions,
  ContextBatchResult,
  ContextKeyPage,
  ContextKeysQuery,
  ContextMessage,
  ContextMessagePage,
  ContextSummary,
  MessagesQuery,
  NewContextMessage,
} from './types';

export interface ContextMethods {
  /** `GET …/contexts/keys`: one page. */
  listContextKeys(query?: ContextKeysQuery, options?: CallOptions): Promise<ContextKeyPage>;
  /**
   * Every page of keys matching the query, walked by keyset cursor (`nextAfter` → `after`, 100 per
   * page unless given), from the start or from `query.after`: keys created meanwhile never shift it.
   */
  contextKeyPages(query?: Omit<ContextKeysQuery, 'page'>, options?: CallOptions): AsyncGenerator<ContextKeyPage, void, undefined>;
  /** Every key matching the query, walking all pages by cursor (see `contextKeyPages`). */
  contextKeys(query?: Omit<ContextKeysQuery, 'page'>, options?: CallOptions): AsyncGenerator<string, void, undefined>;
  /** `POST …/context`: 200 with an empty body; a duplicate is 400 `context_exists`. */
  createContext(key: string, options?: CallOptions): Promise<void>;
  /** `POST …/contexts`: up to 100 keys, a result per key. */
  createContexts(keys: string[], options?: CallOptions): Promise<ContextBatchResult>;

  /** `POST …/context/{key}/message`. */
  appendMessage(key: string, message: NewContextMessage, options?: AppendOptions): Promise<AppendedMessage>;
  /** `POST …/context/{key}/messages`: up to 100, atomically and in order. */
  appendMessages(key: string, messages: NewContextMessage[], options?: AppendOptions): Promise<AppendedMessages>;
  /** `GET …/context/{key}/messages`: one page. */
  readMessages(key: string, query?: MessagesQuery, options?: CallOptions): Promise<ContextMessagePage>;
  /** Every page of a context's messages, in order. */
  messagePages(
    key: string,
    query?: Omit<MessagesQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<ContextMessagePage, void, undefined>;
  /** `GET …/context/{key}/summary`: the latest summary of what replies left out (404 `summary_not_found` when none). */
  readSummary(key: string, options?: CallOptions): Promise<ContextSummary>;
  /** Every message of a context, in stored order, across all pages (100 per page unless given). */
  messages(key: string, query?: Omit<MessagesQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<ContextMessage, void, undefined>;
}

/** The `Idempotency-Key` header of an append or a reply, when one is given. */
export const idempotencyHeader = (o: { idempotencyKey?: string }): Record<string, string> | undefined =>
  o.idempotencyKey === undefined ? undefined : { 'idempotency-key': o.idempotencyKey };

/** The gateway answered from an earlier request with the same Idempotency-Key. */
export const replayed = (headers: Headers) => headers.get('idempotent-replayed') === 'true';

export function contextMethods(agent: AgentCalls): ContextMethods {
  const self: ContextMethods = {
    listContextKeys: (q = {}, o = {}) =>
      agent.json(
        'listContextKeys',
        {},
        {
          query: {
            page: q.page,
            elementsPerPage: q.elementsPerPage,
            search: q.search,
            sortBy: q.sortBy,
            sortDirection: q.sortDirection,
            after: q.after,
          },
          signal: o.signal,
        },
      ),
    async *contextKeyPages(q = {}, o = {}) {
      const elementsPerPage = q.elementsPerPage ?? 100;
      let after = q.after;
      for (;;) {
        const page = await self.listContextKeys({ ...q, elementsPerPage, after }, o);
        // A gateway without the cursor leaves nextAfter out: stopping there would drop keys silently.
        if (page.nextAfter === undefined) {
          throw new GatewayError({
            status: 200,
            code: 'invalid_response',
            message: 'the key page has no nextAfter (a gateway older than the key cursor)',
            operation: `GET ${agent.pathOf('listContextKeys', {})}`,
          });
        }
        yield page;
        if (page.nextAfter === null || page.contextKeys.length === 0) return;
        after = page.nextAfter;
      }
    },
    async *contextKeys(q = {}, o = {}) {
      for await (const page of self.contextKeyPages(q, o)) yield* page.contextKeys;
    },
    createContext: async (key, o = {}) => {
      await agent.send('createContext', {}, { body: { key }, signal: o.signal });
    },
    createContexts: (keys, o = {}) => agent.json('createContexts', {}, { body: { keys }, signal: o.signal }),
    appendMessage: async (key, message, o = {}) => {
      const answer = await agent.send(
        'appendMessage',
        { contextKey: key },
        { body: message, signal: o.signal, headers: idempotencyHeader(o) },
      );
      return { message: answer.body as AppendedMessage['message'], replayed: replayed(answer.headers) };
    },
    appendMessages: async (key, messages, o = {}) => {
      const init = { body: { messages }, signal: o.signal, headers: idempotencyHeader(o) };
      const answer = await agent.send('appendMessages', { contextKey: key }, init);
      return { messages: (answer.body as { messages: AppendedMessages['messages'] }).messages, replayed: replayed(answer.headers) };
    },
    readMessages: (key, q = {}, o = {}) =>
      agent.json('readMessages', { contextKey: key }, { query: { limit: q.limit, cursor: q.cursor, order: q.order }, signal: o.signal }),
    async *messagePages(key, q = {}, o = {}) {
      const limit = q.limit ?? 100;
      let cursor: string | undefined;
      for (;;) {
        const page = await self.readMessages(key, { limit, cursor, order: q.order }, o);
        yield page;
        if (!page.hasMore || page.nextCursor === null) return;
        cursor = page.nextCursor;
      }
    },
    readSummary: (key, o = {}) => agent.json('readSummary', { contextKey: key }, { signal: o.signal }),
    async *messages(key, q = {}, o = {}) {
      for await (const page of self.messagePages(key, q, o)) yield* page.messages;
    },
  };
  return self;
}
