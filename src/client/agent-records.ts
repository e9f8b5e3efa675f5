/** What an agent did: its audit trail and its token usage (owner's token only). */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type { AuditEntry, AuditPage, AuditQuery, UsageQuery, UsageReport } from './types';

export interface RecordMethods {
  /** `GET …/audit` (owner's token only): one page of the audit trail, newest first. */
  listAuditEntries(query?: AuditQuery, options?: CallOptions): Promise<AuditPage>;
  /** Every page of the audit trail, newest first, following `nextCursor` (100 per page unless given). */
  auditPages(query?: Omit<AuditQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<AuditPage, void, undefined>;
  /** Every entry of the audit trail, newest first, across all pages. */
  audit(query?: Omit<AuditQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<AuditEntry, void, undefined>;
  /** `GET …/usage` (owner's token only): token usage over UTC days `from`..`to` (default today), grouped by day, credential or context. */
  getUsage(query?: UsageQuery, options?: CallOptions): Promise<UsageReport>;
}

export function recordMethods(agent: AgentCalls): RecordMethods {
  const self: RecordMethods = {
    listAuditEntries: (q = {}, o = {}) =>
      agent.json('listAuditEntries', {}, { query: { limit: q.limit, cursor: q.cursor }, signal: o.signal }),
    async *auditPages(q = {}, o = {}) {
      const limit = q.limit ?? 100;
      let cursor: string | undefined;
      for (;;) {
        const page = await self.listAuditEntries({ limit, cursor }, o);
        yield page;
        if (page.nextCursor === null || page.entries.length === 0) return;
        cursor = page.nextCursor;
      }
    },
    async *audit(q = {}, o = {}) {
      for await (const page of self.auditPages(q, o)) yield* page.entries;
    },
    getUsage: (q = {}, o = {}) => agent.json('getUsage', {}, { query: { from: q.from, to: q.to, groupBy: q.groupBy }, signal: o.signal }),
  };
  return self;
}
