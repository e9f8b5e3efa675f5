import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { promptTemplates } from '../storage/schema';
import { agentRef, ofAgent } from '../storage/agent-rows';

export interface PromptTemplate {
  key: string;
  template: string;
  description: string | null;
  updatedAt: string;
}

/** A template in the list: not its text. */
export interface PromptTemplateSummary {
  key: string;
  description: string | null;
  /** Length of the text in Unicode code points. */
  characters: number;
  updatedAt: string;
}

export interface PromptTemplatePage {
  templates: PromptTemplateSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

function toTemplate(row: typeof promptTemplates.$inferSelect): PromptTemplate {
  return { key: row.key, template: row.template, description: row.description, updatedAt: row.updatedAt.toISOString() };
}

export async function getPromptTemplate(db: Database, agent: Agent, key: string): Promise<PromptTemplate> {
  const ref = agentRef(agent);
  let row: typeof promptTemplates.$inferSelect | undefined;
  try {
    [row] = await db.reads
      .select()
      .from(promptTemplates)
      .where(and(ofAgent(promptTemplates, ref), eq(promptTemplates.key, key)))
      .limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) throw new AppError('prompt_template_not_found', `No prompt template with key ${key}`);
  return toTemplate(row);
}

/** Creates or replaces the template under `key`, with its audit entry in the same transaction. */
export async function savePromptTemplate(
  db: Database,
  agent: Agent,
  key: string,
  input: { template: string; description?: string | null },
): Promise<PromptTemplate> {
  const values = { template: input.template, description: input.description ?? null, updatedAt: new Date() };
  try {
    const row = await db.orm.transaction(async (tx) => {
      const [saved] = await tx
        .insert(promptTemplates)
        .values({ ...agentRef(agent), key, ...values })
        .onConflictDoUpdate({
          target: [promptTemplates.chainId, promptTemplates.collection, promptTemplates.tokenId, promptTemplates.key],
          set: values,
        })
        .returning();
      await auditChange(tx, agent, 'prompt_template.put', { templateKey: key });
      return saved!;
    });
    return toTemplate(row);
  } catch (err) {
    throw databaseError(err);
  }
}

const CURSOR_TAG = 't1.';
/** The keys a cursor may hold: the rule of a template key (settings/schemas.ts). */
const TEMPLATE_KEY = /^[A-Za-z0-9._\-:@]{1,128}$/;

function encodeCursor(key: string): string {
  return btoa(`${CURSOR_TAG}${key}`).replace(/=+$/, '');
}

/** The key a cursor points after; 400 `validation_failed` when it is not one this endpoint issued. */
function decodeCursor(cursor: string): string {
  let text = '';
  try {
    text = atob(cursor);
  } catch {
    // not base64: refused below
  }
  const key = text.startsWith(CURSOR_TAG) ? text.slice(CURSOR_TAG.length) : '';
  if (!TEMPLATE_KEY.test(key)) {
    throw new AppError('validation_failed', 'The cursor is not valid: pass nextCursor from the previous page', {
      details: { issues: [{ path: 'cursor', message: 'not a cursor issued by this endpoint' }] },
    });
  }
  return key;
}

/** The agent's templates in byte order of their keys, `limit` after `cursor`; not their texts. */
export async function listPromptTemplates(
  db: Database,
  agent: Agent,
  page: { cursor?: string | undefined; limit: number },
): Promise<PromptTemplatePage> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  // Byte order whatever the database's collation: the cursor compares the same way the page sorts.
  const key = sql`${promptTemplates.key} COLLATE "C"`;
  let rows: { key: string; description: string | null; characters: number; updatedAt: Date }[];
  try {
    rows = await db.reads
      .select({
        key: promptTemplates.key,
        description: promptTemplates.description,
        characters: sql<number>`char_length(${promptTemplates.template})::int`,
        updatedAt: promptTemplates.updatedAt,
      })
      .from(promptTemplates)
      .where(and(ofAgent(promptTemplates, agentRef(agent)), after === undefined ? undefined : gt(key, after)))
      .orderBy(asc(key))
      .limit(page.limit + 1);
  } catch (err) {
    throw databaseError(err);
  }
  const templates = rows.slice(0, page.limit).map((r) => ({
    key: r.key,
    description: r.description,
    characters: Number(r.characters),
    updatedAt: r.updatedAt.toISOString(),
  }));
  const last = rows.length > page.limit ? templates[page.limit - 1] : undefined;
  return { templates, nextCursor: last === undefined ? null : encodeCursor(last.key) };
}
