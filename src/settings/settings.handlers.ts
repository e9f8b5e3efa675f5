import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../types';
import { keyRing } from '../vault/store';
import { getLlmSettings, saveLlmSettings, type SettingsDeps } from './llm.service';
import { getPromptTemplate, listPromptTemplates, savePromptTemplate } from './prompt-templates.service';
import type * as routes from './settings.routes';

function settingsDeps(c: Context<AppBindings>): SettingsDeps {
  const { config } = c.var;
  return {
    db: c.var.db,
    ring: () => keyRing(config),
    maxTokensPerRequest: config.maxTokensPerRequest,
    outbound: { loopbackTargets: config.dev.loopbackTargets },
  };
}

export const getLlmHandler: RouteHandler<typeof routes.getLlmSettings, AppBindings> = async (c) =>
  c.json(await getLlmSettings(settingsDeps(c), c.var.agent, { byOwner: c.var.role === 'owner' }), 200);

export const saveLlmHandler: RouteHandler<typeof routes.saveLlmSettings, AppBindings> = async (c) =>
  c.json(await saveLlmSettings(settingsDeps(c), c.var.agent, c.req.valid('json'), { byOwner: c.var.role === 'owner' }), 200);

export const getTemplateHandler: RouteHandler<typeof routes.getPromptTemplate, AppBindings> = async (c) =>
  c.json(await getPromptTemplate(c.var.db, c.var.agent, c.req.valid('param').key), 200);

export const saveTemplateHandler: RouteHandler<typeof routes.savePromptTemplate, AppBindings> = async (c) =>
  c.json(await savePromptTemplate(c.var.db, c.var.agent, c.req.valid('param').key, c.req.valid('json')), 200);

export const listTemplatesHandler: RouteHandler<typeof routes.listPromptTemplates, AppBindings> = async (c) =>
  c.json(await listPromptTemplates(c.var.db, c.var.agent, c.req.valid('query')), 200);
