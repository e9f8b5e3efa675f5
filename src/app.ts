import { cors } from 'hono/cors';
import { agentMcp, agentMcpOverlapsOwnerCheck, mcpChallenge, mcpRebindingGuard } from './mcp-server';
import { agentOverlapsOwnerCheck, agents } from './agents';
import { agentGate } from './access/gate';
import { compileRoleAccess, type RoleAccess } from './access/roles';
import { audit } from './audit';
import { collections } from './collections';
import { auth } from './auth';
import { contexts, overlapOwnerCheck } from './contexts';
import { mcp } from './tool-servers';
import { chatCompletionOverlapsOwnerCheck, openaiCompat } from './openai-compat';
import { oauth, oauthTokenCheck, FORM_BODY_PATHS } from './oauth';
import { memory, memoryOverlapsOwnerCheck } from './memory';
import { replies, replyOverlapsOwnerCheck } from './replies';
import { settings } from './settings';
import { usage, usageOverlapsOwnerCheck } from './usage';
import { summaries, summaryOverlapsOwnerCheck } from './summaries';
import { bearer } from './access/bearer';
import { dashboardAssets } from './dashboard-serving';
import { referencePage } from './reference/reference-page';
import { AppError, errorResponse, renderError } from './errors';
import { health } from './health';
import { compileKeyAccess, documentKeyAccess, type KeyAccess, keys } from './keys';
import { bodyLimit } from './http/body-limit';
import { withConfig } from './http/config';
import { withDatabase } from './http/database';
import { jsonBody } from './http/json-body';
import { clientRateLimit, limitAgentKeys, walletRateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import { documentCommonResponses } from './http/openapi-responses';
import { documentRequestBytesErrors, storableUrl } from './http/request-bytes';
import { createRouter } from './http/router';
import { compileRouteTable, gatedRoutes, onKnownRoutes, type RouteTable } from './http/routes-table';
import { profile } from './profile';
import { agentCard } from './a2a/card.index';
import { a2aChallenge, a2aParseError, agentA2a } from './a2a';
import { paid } from './paid';

const API_DESCRIPTION =
  'REST gateway for AI agents that are NFTs. Log in with a wallet signature (POST /auth/jwt/init, sign ' +
  'the message, POST /auth/jwt/finish), then call agent-scoped routes with `Authorization: Bearer <token>`. ' +
  'Automation uses an agent key instead (`Authorization: Bearer agk_...`, created by the owner with POST ' +
  '/agent/{c}/{t}/keys): scoped, revocable, on its own agent only. Ownership of the agent NFT is checked ' +
  'on-chain on every agent-scoped request.\n\n' +
  'Errors share one shape: { "error": { "code", "message", "details"? }, "requestId" }. Codes are stable; ' +
  'a wrong method on a known path is 405 with an Allow header, an unknown path 404.';

/** Builds the gateway: middleware order, routers, OpenAPI document, reference page, errors. */
export function createApp() {
  const app = createRouter();
  let table: RouteTable | undefined;
  const routes = () => (table ??= compileRouteTable(app.routes));
  const overlapping = compileRouteTable([
    ...overlapOwnerCheck,
    ...memoryOverlapsOwnerCheck,
    ...replyOverlapsOwnerCheck,
    ...chatCompletionOverlapsOwnerCheck,
    ...usageOverlapsOwnerCheck,
    ...summaryOverlapsOwnerCheck,
    ...agentMcpOverlapsOwnerCheck,
    ...agentOverlapsOwnerCheck,
  ]);
  // The agent routes whose operation says `security: []` (the registration file) pass no gate.
  const gated = gatedRoutes(routes, () => app.openAPIRegistry.definitions);
  let keyRules: KeyAccess | undefined;
  const keyAccess = () => (keyRules ??= compileKeyAccess(app.openAPIRegistry.definitions));
  let roleRules: RoleAccess | undefined;
  const roleAccess = () => (roleRules ??= compileRoleAccess(app.openAPIRegistry.definitions));

  app.use('*', requestId());
  app.use('*', requestLog());
  app.use('*', withConfig());
  app.use('*', storableUrl());
  app.use('*', bodyLimit());
  app.use(
    '*',
    cors({
      origin: '*',
      // A2A clients send their protocol version and extensions on the card's fetch and every call.
      allowHeaders: [
        'Authorization',
        'Content-Type',
        'Idempotency-Key',
        'X-Request-Id',
        'Mcp-Protocol-Version',
        'Mcp-Method',
        'Mcp-Name',
        'A2A-Version',
        'A2A-Extensions',
        'PAYMENT-SIGNATURE',
      ],
      exposeHeaders: ['X-Request-Id', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'PAYMENT-REQUIRED', 'PAYMENT-RESPONSE'],
      maxAge: 600,
    }),
  );
  app.use('*', clientRateLimit());
  // The A2A route answers a body that is not JSON with JSON-RPC's parse error, before the body check.
  app.use('/agent/:agentCollectionAddress/:agentTokenId/a2a', onKnownRoutes(routes, a2aParseError()));
  app.use('*', jsonBody(routes, { formPaths: FORM_BODY_PATHS }));
  app.use('*', withDatabase());

  // The three gates of every agent-scoped route, and the per-wallet rate limit after the first;
  // unknown paths and methods fall through to 404/405. One pattern: hono's `/*` also matches the
  // bare agent path, so a second pattern for it would run the gates (and count) twice.
  // The agent's MCP server: a foreign Host or Origin is 403 before any gate (DNS-rebinding
  // protection); its 401s name the OAuth metadata (RFC 9728), whichever gate refused.
  app.use(
    '/agent/:agentCollectionAddress/:agentTokenId/mcp',
    onKnownRoutes(routes, mcpRebindingGuard()),
    onKnownRoutes(routes, mcpChallenge()),
  );
  // The agent's A2A route: its 401s say `WWW-Authenticate: Bearer` with its OAuth metadata.
  app.use('/agent/:agentCollectionAddress/:agentTokenId/a2a', onKnownRoutes(routes, a2aChallenge()));
  app.use(
    '/agent/:agentCollectionAddress/:agentTokenId/*',
    onKnownRoutes(gated, bearer({ keyScope: (c) => keyAccess().scopeFor(c.req.method, c.req.path), oauth: oauthTokenCheck })),
    onKnownRoutes(gated, walletRateLimit()),
    onKnownRoutes(
      gated,
      agentGate({
        overlapsOwnerCheck: (c) => overlapping.methodsFor(c.req.path).includes(c.req.method),
        onAgentKey: limitAgentKeys,
        accessNeeded: (c) => roleAccess().levelFor(c.req.method, c.req.path),
      }),
    ),
  );

  // The registered collections and the wallet's own tokens of one: a wallet's token only (no
  // agent, so no agent key; an OAuth token is told apart to be refused as one, 401 invalid_token),
  // counted in the same per-wallet budget as the agent routes.
  const walletOnly = bearer({ keyScope: () => undefined, oauth: oauthTokenCheck });
  for (const path of ['/collections', '/wallet/collections/:agentCollectionAddress/tokens']) {
    app.use(path, onKnownRoutes(routes, walletOnly), onKnownRoutes(routes, walletRateLimit()));
  }

  app.route('/', health);
  app.route('/', auth);
  app.route('/', agents);
  app.route('/', collections);
  app.route('/', contexts);
  app.route('/', memory);
  app.route('/', summaries);
  app.route('/', settings);
  app.route('/', mcp);
  app.route('/', replies);
  app.route('/', openaiCompat);
  app.route('/', agentMcp);
  app.route('/', keys);
  app.route('/', audit);
  app.route('/', usage);
  app.route('/', profile);
  app.route('/', agentCard);
  app.route('/', agentA2a);
  app.route('/', paid);
  app.route('/', oauth);
  app.route('/', dashboardAssets);
  // After every agent route is registered: each one's security and key scope (src/keys/scopes.ts).
  documentKeyAccess(app.openAPIRegistry);
  documentRequestBytesErrors(app.openAPIRegistry, errorResponse);
  documentCommonResponses(app.openAPIRegistry);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The token from POST /auth/jwt/finish. Bound to one wallet and one chain.',
  });
  app.doc31('/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: {
      title: `agent-gateway (${c.var.config.deployment}, chain ${c.var.config.chainId})`,
      version: '0.1.0',
      description: API_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: new URL(c.req.url).origin }],
    // Every operation needs the bearer token unless it says `security: []` (health, login, verify);
    // the routes an agent key may call list `agentKey` too (src/keys/scopes.ts).
    security: [{ bearer: [] }],
    tags: [
      { name: 'Login', description: 'Wallet-signature login (EIP-4361) and chat pairing' },
      { name: 'Agents', description: 'Agent-scoped routes: bearer token, registered collection, on-chain owner' },
      { name: 'Contexts', description: "The agent's memory: context keys and their messages, in the agent's own storage" },
      {
        name: 'Memory',
        description: "Search across the agent's contexts: full text with stemming, trigram similarity for identifiers and misspellings",
      },
      { name: 'Replies', description: 'The agent answers: its model over its memory, prompt template and tools' },
      { name: 'MCP server', description: 'The agent as an MCP server: ask it, use its memory and its tools from any MCP client' },
      { name: 'Tool servers', description: 'External MCP tool servers an agent may call; credentials go to the vault' },
      {
        name: 'Agent keys',
        description: "Scoped, revocable credentials for pipelines and chat bridges; managed with the owner's token only",
      },
      { name: 'Audit', description: 'What was done with the agent: administrative changes and tool calls, for its owner' },
      { name: 'Usage', description: "What the agent's model calls used, per day, credential and context; daily limits" },
      { name: 'Settings', description: 'LLM settings and prompt templates (dashboard); secrets go to the vault and are never returned' },
      { name: 'OAuth', description: "OAuth 2.1 for MCP clients: an agent's MCP server authorized by its owner's wallet in the browser" },
      { name: 'Operations', description: 'Health and documentation' },
    ],
  }));
  app.get('/docs', async (c) => {
    const page = await referencePage({ specUrl: '/openapi.json', title: `agent-gateway: ${c.var.config.deployment}` });
    return c.html(page.html, 200, { 'Content-Security-Policy': page.csp });
  });
  app.get('/', (c) => c.redirect('/docs', 302));

  app.notFound((c) => {
    const allowed = routes().methodsFor(c.req.path);
    if (allowed.length > 0) {
      return renderError(
        c,
        new AppError('method_not_allowed', `${c.req.method} is not allowed on this path; use ${allowed.join(', ')}`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
    }
    return renderError(c, new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`));
  });
  app.onError((err, c) => renderError(c, err));
  return app;
}

export type App = ReturnType<typeof createApp>;
