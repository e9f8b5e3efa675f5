import { createRouter } from '../http/router';
import * as handlers from './settings.handlers';
import * as routes from './settings.routes';

export const settings = createRouter()
  .openapi(routes.getLlmSettings, handlers.getLlmHandler)
  .openapi(routes.saveLlmSettings, handlers.saveLlmHandler)
  .openapi(routes.getPromptTemplate, handlers.getTemplateHandler)
  .openapi(routes.savePromptTemplate, handlers.saveTemplateHandler);
