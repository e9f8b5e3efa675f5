import { isPublic } from '../http/routes-table';
import { KEY_ROUTE_SCOPES } from './scopes';

interface RouteDefinitions {
  definitions: {
    type: string;
    route?: { path: string; operationId?: string; description?: string; security?: unknown };
  }[];
  registerComponent(
    type: 'securitySchemes',
    name: string,
    component: { type: 'http'; scheme: string; bearerFormat: string; description: string },
  ): unknown;
}

/**
 * Registers the `agentKey` security scheme and, from KEY_ROUTE_SCOPES (the one table the bearer
 * gate also reads), tells on every agent route whether it accepts an agent key and with which
 * scope: `security` lists both schemes or only `bearer`, `x-agent-key-scope` names the scope, and
 * the description says it. Call after the routers are mounted.
 */
export function documentKeyAccess(registry: RouteDefinitions): void {
  registry.registerComponent('securitySchemes', 'agentKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'agk_…',
    description:
      'An agent key (`agk_` + 32 characters) from POST /agent/{c}/{t}/keys: works on its own agent only, within its scopes, while the wallet that made it owns the agent.',
  });
  for (const definition of registry.definitions) {
    const route = definition.route;
    if (definition.type !== 'route' || !route?.path.startsWith('/agent/')) continue;
    if (isPublic(route)) continue; // `security: []`: no credential at all (src/http/routes-table.ts)
    const scope = route.operationId === undefined ? undefined : KEY_ROUTE_SCOPES[route.operationId];
    const note = scope
      ? `Accepts the owner's token or an agent key ${scope === 'any' ? 'of any scope' : `with the scope \`${scope}\``}.`
      : "Only the owner's token: an agent key is 403 `key_not_allowed`.";
    definition.route = {
      ...route,
      description: route.description ? `${route.description}\n\n${note}` : note,
      ...(scope ? { security: [{ bearer: [] }, { agentKey: [] }], 'x-agent-key-scope': scope } : { security: [{ bearer: [] }] }),
    };
  }
}
