/**
 * A prompt template's `{{name}}` placeholder (spaces inside the braces allowed): the rule the
 * renderer (./template.ts) fills and the dashboard's template page highlights. No dependencies.
 */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]{1,64})\s*\}\}/g;
