import { and, eq } from 'drizzle-orm';
import type { Agent } from '../agents/agent';
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
