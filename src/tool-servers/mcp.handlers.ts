import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError } from '../errors';
import { resourceId } from '../http/openapi';
import type { AppBindings } from '../types';
import { oauthDeps } from './oauth/request-deps';
import { addConnection, callTool, listConnections, liveTools, removeConnection, type McpDeps } from './connections.service';
import { replaceConnectionAuth } from './connection-auth.service';
import type * as routes from './mcp.routes';

/** The tool servers' deps, with what an OAuth connection's flow needs (the gateway's origin, the state store). */
function mcpDeps(c: Context<AppBindings>): McpDeps {
  return oauthDeps(c);
}

/** Ids are UUIDs; anything else cannot name a connection. */
function connectionId(id: string): string {
  const valid = resourceId(id);
  if (valid === null) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
  return valid;
}

/**
 * A connection as the caller may see it: the owner sees the full URL of its own connections; a
 * delegate (admin) sees the origin only, as a URL may carry a key.
 */
function forCaller<T extends { url: string }>(c: Context<AppBindings>, connection: T): T {
  return c.var.role === undefined || c.var.role === 'owner' ? connection : { ...connection, url: new URL(connection.url).origin };
}

export const listHandler: RouteHandler<typeof routes.listConnections, AppBindings> = async (c) =>
  c.json({ connections: (await listConnections(mcpDeps(c), c.var.agent)).map((v) => forCaller(c, v)) }, 200);

export const addHandler: RouteHandler<typeof routes.addConnection, AppBindings> = async (c) =>
  c.json(forCaller(c, await addConnection(mcpDeps(c), c.var.agent, c.req.valid('json'))), 200);

export const removeHandler: RouteHandler<typeof routes.removeConnection, AppBindings> = async (c) => {
  const id = connectionId(c.req.valid('param').id);
  await removeConnection(mcpDeps(c), c.var.agent, id);
  return c.json({ id, deleted: true as const }, 200);
};

export const toolsHandler: RouteHandler<typeof routes.listTools, AppBindings> = async (c) =>
  c.json(await liveTools(mcpDeps(c), c.var.agent, connectionId(c.req.valid('param').id)), 200);

export const callHandler: RouteHandler<typeof routes.callTool, AppBindings> = async (c) =>
  c.json(await callTool(mcpDeps(c), c.var.agent, connectionId(c.req.valid('param').id), c.req.valid('json')), 200);

export const replaceAuthHandler: RouteHandler<typeof routes.replaceConnectionAuth, AppBindings> = async (c) =>
  c.json(
    forCaller(c, await replaceConnectionAuth(mcpDeps(c), c.var.agent, connectionId(c.req.valid('param').id), c.req.valid('json'))),
    200,
  );
