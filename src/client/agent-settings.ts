/** An agent's settings: its model (LLM settings), its prompt templates, its own database. */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type {
  DatabaseFirstStep,
  DatabaseFirstStepResult,
  DatabaseSecondStep,
  DatabaseSettings,
  DatabaseSetup,
  LlmSettings,
  LlmSettingsInput,
  PromptTemplate,
  PromptTemplateInput,
  PromptTemplatePage,
  PromptTemplatesQuery,
  PromptTemplateSummary,
} from './types';

export interface SettingsMethods {
  /** `GET …/llm/settings` (404 `llm_settings_not_found` when never set). */
  getLlmSettings(options?: CallOptions): Promise<LlmSettings>;
  /** `POST …/llm/settings`. */
  saveLlmSettings(settings: LlmSettingsInput, options?: CallOptions): Promise<LlmSettings>;
  /** `GET …/prompt-template/{key}`. */
  getPromptTemplate(key: string, options?: CallOptions): Promise<PromptTemplate>;
  /** `POST …/prompt-template/{key}`. */
  savePromptTemplate(key: string, template: PromptTemplateInput, options?: CallOptions): Promise<PromptTemplate>;
  /** `GET …/prompt-templates`: one page of the agent's templates (keys in byte order, not the texts). */
  listPromptTemplates(query?: PromptTemplatesQuery, options?: CallOptions): Promise<PromptTemplatePage>;
  /** Every template of the agent (key, description, length), across all pages (100 per page unless given). */
  promptTemplates(
    query?: Omit<PromptTemplatesQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<PromptTemplateSummary, void, undefined>;

  /** `POST …/database/settings/first-step`. */
  databaseFirstStep(setup: DatabaseFirstStep, options?: CallOptions): Promise<DatabaseFirstStepResult>;
  /** `POST …/database/settings/second-step`. */
  databaseSecondStep(step: DatabaseSecondStep, options?: CallOptions): Promise<DatabaseSetup>;
  /** `GET …/database/settings`. */
  getDatabaseSettings(options?: CallOptions): Promise<DatabaseSettings>;
}

export function settingsMethods(agent: AgentCalls): SettingsMethods {
  const self: SettingsMethods = {
    getLlmSettings: (o = {}) => agent.json('getLlmSettings', {}, { signal: o.signal }),
    saveLlmSettings: (settings, o = {}) => agent.json('saveLlmSettings', {}, { body: settings, signal: o.signal }),
    getPromptTemplate: (key, o = {}) => agent.json('getPromptTemplate', { key }, { signal: o.signal }),
    savePromptTemplate: (key, template, o = {}) => agent.json('savePromptTemplate', { key }, { body: template, signal: o.signal }),
    listPromptTemplates: (q = {}, o = {}) =>
      agent.json('listPromptTemplates', {}, { query: { limit: q.limit, cursor: q.cursor }, signal: o.signal }),
    async *promptTemplates(q = {}, o = {}) {
      const limit = q.limit ?? 100;
      let cursor: string | undefined;
      for (;;) {
        const page = await self.listPromptTemplates({ limit, cursor }, o);
        yield* page.templates;
        if (page.nextCursor === null || page.templates.length === 0) return;
        cursor = page.nextCursor;
      }
    },
    databaseFirstStep: (setup, o = {}) => agent.json('databaseFirstStep', {}, { body: setup, signal: o.signal }),
    databaseSecondStep: (step, o = {}) => agent.json('databaseSecondStep', {}, { body: step, signal: o.signal }),
    getDatabaseSettings: (o = {}) => agent.json('getDatabaseSettings', {}, { signal: o.signal }),
  };
  return self;
}
