import { AppError } from '../errors';
import { PLACEHOLDER } from './placeholders';

/** The rendered system prompt's cap in UTF-8 bytes: 256 KiB, so a template's variables cannot grow one request without bound. */
export const MAX_PROMPT_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const utf8Bytes = (text: string): number => encoder.encode(text).byteLength;

/**
 * Renders a prompt template: every `{{name}}` (spaces inside the braces allowed) takes
 * `variables[name]`. Values are inserted as they are (no re-expansion). Before anything is built:
 * a placeholder without a variable is 400 `prompt_variable_missing`, naming every missing one;
 * a result over `maxBytes` UTF-8 bytes is 400 `prompt_too_large`. The size is counted from the
 * template's text and each variable's size (measured once per name), so a small template that
 * repeats a large variable costs a count, never the string it would make.
 */
export function renderTemplate(template: string, variables: Readonly<Record<string, string>>, maxBytes: number = MAX_PROMPT_BYTES): string {
  const missing = new Set<string>();
  const sizes = new Map<string, number>();
  // Placeholders are ASCII (one byte a character): the text around them weighs the template's
  // bytes less theirs, so the count encodes the template once and each variable once.
  let bytes = utf8Bytes(template);
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    bytes -= match[0].length;
    if (!Object.hasOwn(variables, name)) {
      missing.add(name);
      continue;
    }
    let size = sizes.get(name);
    if (size === undefined) {
      size = utf8Bytes(variables[name] ?? '');
      sizes.set(name, size);
    }
    bytes += size;
  }
  if (missing.size > 0) {
    const names = [...missing];
    throw new AppError('prompt_variable_missing', `The prompt template needs variables that were not given: ${names.join(', ')}`, {
      details: { missing: names },
    });
  }
  if (bytes > maxBytes) {
    throw new AppError('prompt_too_large', `The rendered prompt would be ${bytes} bytes, over the cap of ${maxBytes} (UTF-8)`, {
      details: { bytes, maxBytes },
    });
  }
  return template.replace(PLACEHOLDER, (_whole, name: string) => variables[name] ?? '');
}
