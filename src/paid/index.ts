import { createRouter } from '../http/router';
import * as handlers from './paid.handlers';
import * as routes from './paid.routes';

/** Paid replies: anyone asks the agent and pays its owner with x402 (docs/paid-calls.md). */
export const paid = createRouter().openapi(routes.paidAsk, handlers.paidAskHandler);
