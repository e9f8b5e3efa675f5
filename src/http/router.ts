import { OpenAPIHono, type Hook } from '@hono/zod-openapi';
import { AppError } from '../errors';
import type { AppBindings } from '../types';

/** Turns a zod validation failure into the one 400 error shape, listing each problem. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
// biome-ignore lint/suspicious/noExplicitAny: one hook serves every route, whatever its input and path types
export const validationHook: Hook<any, AppBindings, any, any> = (result) => {
  if (!result.success) {
    throw new AppError('validation_failed', 'Request validation failed', {
      details: {
        issues: result.error.issues.map((issue) => ({
          path: issue.path.map(String).join('.'),
          message: issue.message,
        })),
      },
    });
  }
};

/** A router for one resource: its routes are also its OpenAPI document. */
export function createRouter() {
  return new OpenAPIHono<AppBindings>({ strict: false, defaultHook: validationHook });
}
