import { createRouter } from '../http/router';
import * as database from './database.handlers';
import * as databaseRoutes from './database.routes';
import * as handlers from './settings.handlers';
import * as routes from './settings.routes';

export const settings = createRouter()
  .openapi(routes.getLlmSettings, handlers.getLlmHandler)
  .openapi(routes.saveLlmSettings, handlers.saveLlmHandler)
  .openapi(routes.getPromptTemplate, handlers.getTemplateHandler)
  .openapi(routes.savePromptTemplate, handlers.saveTemplateHandler)
  .openapi(routes.listPromptTemplates, handlers.listTemplatesHandler)
  .openapi(databaseRoutes.firstStep, database.firstStepHandler)
  .openapi(databaseRoutes.secondStep, database.secondStepHandler)
  .openapi(databaseRoutes.getDatabaseSettings, database.getDatabaseHandler);
