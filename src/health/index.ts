import { createRouter } from '../http/router';
import { healthHandler } from './health.handlers';
import { getHealth } from './health.routes';

export const health = createRouter().openapi(getHealth, healthHandler);
