import { PLACEHOLDER } from '../../replies/placeholders';

/** The template cut into text and placeholders, as the renderer reads it. */
export function templateSegments(template: string): { text: string; variable?: string }[] {
  const out: { text: string; variable?: string }[] = [];
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match.index > at) out.push({ text: template.slice(at, match.index) });
    out.push({ text: match[0], variable: match[1] ?? '' });
    at = match.index + match[0].length;
  }
  if (at < template.length) out.push({ text: template.slice(at) });
  return out;
}

/** The variable names a template needs, each once, in order of first use. */
export function templateVariables(template: string): string[] {
  return [...new Set(templateSegments(template).flatMap((s) => (s.variable === undefined ? [] : [s.variable])))];
}
