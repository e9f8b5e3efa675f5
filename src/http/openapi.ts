import { z } from '@hono/zod-openapi';

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

/** The query of a paged read: `cursor` (the previous page's `nextCursor`) and `limit` 1..100, default 50. */
export const PageQuerySchema = z.object({
  cursor: z
    .string()
    .max(200)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: 'nextCursor of the previous page' }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 100')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 100, 'limit must be from 1 to 100')
    .optional()
    .default(50)
    .openapi({
      param: { name: 'limit', in: 'query' },
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 50,
      example: 50,
      description: '1..100, default 50',
    }),
});
