/**
 * Type-level check (compiled by `npm run typecheck`, never run): the worker project types `pg`
 * with the narrow src/settings/pg-worker.d.ts; the real module (@types/pg) must fit it, so the
 * declaration cannot drift from what `pg` provides.
 */
import type realPg from 'pg';
import type narrowPg from '../../src/settings/pg-worker';

type Fits<Real extends Narrow, Narrow> = [Real, Narrow];

export type PgFitsWorkerDeclaration = [
  Fits<InstanceType<typeof realPg.Client>, narrowPg.Client>,
  Fits<narrowPg.ClientConfig, realPg.ClientConfig>,
  Fits<realPg.QueryResult<{ name: unknown }>, narrowPg.QueryResult<{ name: unknown }>>,
];
