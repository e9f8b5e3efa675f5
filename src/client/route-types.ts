/**
 * The types a route object gives the client: its 200 answer, its JSON body and its query, read
 * from the zod schemas that also generate the OpenAPI document. Browser-safe: types only.
 */
import type { z } from '@hono/zod-openapi';

type JsonSchemaOf<T> = T extends { content: { 'application/json': { schema: infer S extends z.ZodType } } } ? S : never;

/** The JSON a route answers with 200, as the gateway sends it. */
export type ResponseOf<Route> = Route extends { responses: { 200: infer Answer } } ? z.output<JsonSchemaOf<Answer>> : never;

/** The JSON body a route accepts, as a caller writes it (defaults optional). */
export type RequestBodyOf<Route> = Route extends { request: { body: infer Body } } ? z.input<JsonSchemaOf<Body>> : never;

/** A route's query parameters as values (the client turns them into strings), all optional. */
export type QueryOf<Route> = Route extends { request: { query: infer Q extends z.ZodType } }
  ? { [K in keyof z.output<Q>]?: z.output<Q>[K] }
  : never;
