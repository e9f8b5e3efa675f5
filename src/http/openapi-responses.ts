/**
 * Responses every operation shares because middleware answers them before any handler runs
 * (request id, 405, body limit, JSON body, unexpected errors), added to each route definition of
 * the OpenAPI document once the routers are mounted: the routes stay the one source, and no
 * operation can forget one.
 */
import { errorResponse } from '../errors';

type HeaderObject = {
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer'; enum?: string[]; example?: unknown; minimum?: number };
};

/** Response headers of the API, registered once as components and referenced by name. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      'The id of this request: yours when you sent a safe `X-Request-Id` (8..128 of `A-Z a-z 0-9 . _ : -`), else a UUID. Error bodies repeat it as `requestId`.',
    required: true,
    schema: { type: 'string', example: '7f3c1c1e-8d5e-4d4f-9c43-1b0f2f7a9e21' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 0, example: 60 },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when an earlier request with the same `Idempotency-Key` stored this result and nothing new was stored; absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: {
    description: 'The methods this path accepts, comma-separated',
    required: true,
    schema: { type: 'string', example: 'GET, HEAD' },
  },
} as const satisfies Record<string, HeaderObject>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** A reference to one of RESPONSE_HEADERS, for a route's response `headers`. */
export function headerRef(name: ResponseHeaderName): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

interface ResponseLike {
  description?: string;
  headers?: Record<string, unknown>;
  content?: unknown;
}

interface RouteDefinitions {
  definitions: {
    type: string;
    route?: { request?: { body?: unknown }; responses: Record<string, unknown> };
  }[];
  registerComponent(type: 'headers', name: string, component: HeaderObject): unknown;
}

const METHOD_NOT_ALLOWED = {
  ...errorResponse('`method_not_allowed`: another method on this path; `Allow` lists the ones it accepts'),
  headers: { Allow: headerRef('Allow') },
};
const PAYLOAD_TOO_LARGE = errorResponse('`payload_too_large`: the body is larger than MAX_BODY_BYTES (default 1 MiB)');
const UNSUPPORTED_MEDIA_TYPE = errorResponse('`unsupported_media_type`: the body was not sent as `Content-Type: application/json`');
const INTERNAL_ERROR = errorResponse(
  '`internal_error` (unexpected; the cause is logged with the request id, never returned), `misconfigured` (`details.problems` names the bindings, never their values)',
);
const INVALID_JSON = '`invalid_json` (the body does not parse, or nests arrays and objects deeper than 64 levels)';

/**
 * Adds to every operation: 405 with `Allow`; 413, 415 and `invalid_json` on operations with a
 * body; 500; `X-Request-Id` on every response and `Retry-After` on every 429 and 503. Call after
 * the routers are mounted, before the document is served.
 */
export function documentCommonResponses(registry: RouteDefinitions): void {
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) registry.registerComponent('headers', name, header);
  for (const definition of registry.definitions) {
    if (definition.type !== 'route' || !definition.route) continue;
    const route = definition.route;
    const responses = { ...route.responses, 405: route.responses['405'] ?? METHOD_NOT_ALLOWED } as Record<string, ResponseLike>;
    if (route.request?.body) {
      responses['413'] ??= PAYLOAD_TOO_LARGE;
      responses['415'] ??= UNSUPPORTED_MEDIA_TYPE;
      const own = responses['400'];
      if (own?.description && !own.description.includes('`invalid_json`'))
        responses['400'] = { ...own, description: `${own.description}; ${INVALID_JSON}` };
    }
    responses['500'] ??= INTERNAL_ERROR;
    for (const [status, response] of Object.entries(responses)) {
      const headers: Record<string, unknown> = { 'X-Request-Id': headerRef('X-Request-Id'), ...response.headers };
      if (status === '429' || status === '503') headers['Retry-After'] = headerRef('Retry-After');
      responses[status] = { ...response, headers };
    }
    definition.route = { ...route, responses };
  }
}
