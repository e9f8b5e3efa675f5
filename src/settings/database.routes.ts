import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';

const SetupSchema = z
  .object({
    setupId: z.string(),
    host: z.string(),
    port: z.number().int(),
    database: z.string(),
    user: z.string(),
    ssl: z.enum(['require', 'disable']),
    status: z.enum(['pending', 'active']),
    credential: z.enum(['set', 'reenter_required']).openapi({
      description:
        "`set`: the password was entered by the agent's current owner; `reenter_required`: an earlier owner of the agent entered it (or it was stored before owners were recorded); it is never used for you: run the first step again with your own.",
      example: 'set',
    }),
    offeredTables: z.array(z.string()),
    activeTables: z.array(z.string()).nullable(),
    createdAt: z.string(),
    activatedAt: z.string().nullable(),
  })
  .openapi('DatabaseSetup');

const FirstStepSchema = z
  .object({
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:_\-[\]]+$/, 'host must be a host name or an IP address')
      .openapi({ example: 'db.example.com' }),
    port: z.number().int().min(1).max(65_535).default(5432),
    database: z.string().min(1).max(63).openapi({ example: 'shop' }),
    user: z.string().min(1).max(63).openapi({ example: 'agent_reader' }),
    password: z.string().min(1).max(1_024).openapi({ description: 'Stored encrypted in the vault; never returned' }),
    ssl: z.enum(['require', 'disable']).default('require').openapi({ description: 'TLS to the database (default require)' }),
  })
  .openapi('DatabaseFirstStep');

export const firstStep = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/database/settings/first-step`,
  operationId: 'databaseFirstStep',
  tags: ['Settings'],
  summary: 'Database setup, step 1: connect and list tables',
  description:
    'Checks the target against the outbound policy first: a public host name (no IP address, no local or ' +
    'internal name), port 5432 or a non-privileged port other than well-known internal service ports; a refused ' +
    'target is 400 `database_target_refused` before any connection. Then connects to the external Postgres ' +
    'from the gateway, lists the tables and views the user can read (at most 1000, names of at most 127 characters), ' +
    'and keeps the connection (the password in the vault) as a pending setup. Every failure before the login ' +
    'succeeds (refused, timeout, DNS, TLS, wrong user or password) is the same 424 `database_unreachable`, ' +
    'answered no sooner than 5 s after the attempt started.',
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(FirstStepSchema) },
  responses: {
    200: jsonResponse(
      'The setup id and the readable tables',
      z
        .object({ setupId: z.string(), tables: z.array(z.string()).openapi({ example: ['public.orders'] }) })
        .openapi('DatabaseFirstStepResult'),
    ),
    ...agentRoute.errors,
    400: errorResponse(
      '`database_target_refused` (host or port refused by the outbound policy; `details.reason`), `database_not_found` (the server reports it after the login), `validation_failed`',
    ),
    424: errorResponse('`database_unreachable`: the database could not be reached or refused the login, one answer whatever the cause'),
  },
});

export const secondStep = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/database/settings/second-step`,
  operationId: 'databaseSecondStep',
  tags: ['Settings'],
  summary: 'Database setup, step 2: activate tables',
  description:
    "Activates the chosen subset of the tables step 1 offered. Replaces any earlier active setup of the agent (its stored password is destroyed). Only a setup whose password the agent's current owner entered can be activated.",
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    body: jsonBody(
      z.object({ setupId: z.string().max(64), tables: z.array(z.string().max(300)).min(1).max(1_000) }).openapi('DatabaseSecondStep'),
    ),
  },
  responses: {
    200: jsonResponse('The active setup', SetupSchema),
    ...agentRoute.errors,
    400: errorResponse('`database_table_not_offered` (names the tables), `validation_failed`'),
    404: errorResponse('`database_setup_not_found`, or `agent_not_found`'),
    409: errorResponse(
      "`credential_reentry_required`: the setup's password was entered by an earlier owner of the agent: run the first step again",
    ),
  },
});

export const getDatabaseSettings = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/database/settings`,
  operationId: 'getDatabaseSettings',
  tags: ['Settings'],
  summary: "The agent's database setups",
  description:
    "The active setup (if any) and pending ones. Passwords are never returned; `credential` says whether the agent's current owner entered each one.",
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse(
      'Setups',
      z
        .object({
          active: z.union([SetupSchema, z.null()]).openapi({ description: 'The active setup, or null when none is active' }),
          pending: z.array(SetupSchema),
        })
        .openapi('DatabaseSettings'),
    ),
    ...agentRoute.errors,
  },
});
