import { createRouter } from '../http/router';
import * as handlers from './summaries.handlers';
import * as routes from './summaries.routes';

/** A context's summary of what replies left out (docs/replies.md). */
export const summaries = createRouter().openapi(routes.readSummary, handlers.readSummaryHandler);

/** The summary read overlaps the owner check (docs/architecture.md#a-requests-way-through); the gate answers only after it passed. */
export const summaryOverlapsOwnerCheck = [routes.readSummary];
