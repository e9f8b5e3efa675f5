import type { z } from '@hono/zod-openapi';

/** A required JSON request body in a route definition. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { 'application/json': { schema } }, required: true };
}

/** A JSON response in a route definition. */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A resource id from a path or body: a UUID in lower case, or null (it cannot name anything). */
export function resourceId(id: string): string | null {
  return UUID.test(id) ? id.toLowerCase() : null;
}
