import { createRouter } from '../http/router';
import * as handlers from './audit.handlers';
import * as routes from './audit.routes';

/** The agent's audit trail: read by its owner. Entries are written by the services that act (./entry.ts). */
export const audit = createRouter().openapi(routes.listAuditEntries, handlers.listHandler);
