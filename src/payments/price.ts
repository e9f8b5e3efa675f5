/**
 * The agent's price of a paid reply, as its owner set it in the LLM settings: what the paid route
 * asks, and whether the registration file says `x402Support`. Knows nothing of HTTP.
 */
import type { AgentIdentity } from '../identity/identity';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { llmSettings } from '../storage/schema';

/** The agent's price: USDC units of one paid reply and whether it may use memory tools; null: no paid replies. */
export async function readPrice(db: Database, agent: AgentIdentity): Promise<{ units: number; memoryTools: boolean } | null> {
  try {
    const [row] = await db.orm
      .select({ units: llmSettings.priceAskUnits, memoryTools: llmSettings.priceMemoryTools })
      .from(llmSettings)
      .where(ofAgent(llmSettings, agentRef(agent)))
      .limit(1);
    return row && row.units !== null ? { units: row.units, memoryTools: row.memoryTools } : null;
  } catch (err) {
    throw databaseError(err);
  }
}
