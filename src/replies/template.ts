import { AppError } from '../errors';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]{1,64})\s*\}\}/g;

/**
 * Renders a prompt template: every `{{name}}` (spaces inside the braces allowed) takes
 * `variables[name]`. A placeholder without a variable is 400 `prompt_variable_missing`, naming
 * every missing one, before any model call. Values are inserted as they are (no re-expansion).
 */
export function renderTemplate(template: string, variables: Readonly<Record<string, string>>): string {
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(variables, name)) {
      missing.add(name);
      return whole;
    }
    return variables[name] ?? '';
  });
  if (missing.size > 0) {
    const names = [...missing];
    throw new AppError('prompt_variable_missing', `The prompt template needs variables that were not given: ${names.join(', ')}`, {
      details: { missing: names },
    });
  }
  return text;
}
