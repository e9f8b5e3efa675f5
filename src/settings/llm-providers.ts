/**
 * Providers a reply can run on (docs/replies.md); other names save but a reply answers 409. No
 * dependencies: the settings route (./llm-base-url.ts) and the dashboard's LLM settings page share it.
 */
export const LLM_PROVIDERS = ['openai', 'anthropic', 'openai-compatible', 'workers-ai'] as const;
