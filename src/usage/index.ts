import { createRouter } from '../http/router';
import * as handlers from './usage.handlers';
import * as routes from './usage.routes';

/** What the agent's model calls cost (docs/replies.md, Usage and daily limits): the usage report; recording and limits serve replies. */
export const usage = createRouter().openapi(routes.getUsage, handlers.getUsageHandler);

/** The report reads while the owner check runs (docs/architecture.md#a-requests-way-through); the gate answers only after it passed. */
export const usageOverlapsOwnerCheck = [routes.getUsage];

export { checkUsageLimits, readDayUsage, type ReplyLimits } from './limits';
export { addModelUsage, usageMeter, type UsageCounts } from './meter';
export { keyCredential, recordUsage, walletCredential, type Credential, type UsageRecord } from './record.service';
