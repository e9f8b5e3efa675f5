/**
 * The documentation as tests read it: README.md (the door: what this is, two commands, the
 * five-minute path, where to read on) and the guides under docs/. A test that asks "do the docs
 * say X" reads `readDocs()`, so it holds wherever a section lives; the link check reads the files
 * one by one with `brokenLinks` (scripts/lib/markdown.ts, which the package check uses too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export { brokenLinks, headingAnchors, headingSlug, type MarkdownLink, markdownLinks } from '../../scripts/lib/markdown';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md, then every docs/*.md in name order; paths relative to the repository. */
export function docFiles(): string[] {
  const guides = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides];
}

/** README.md and every guide, joined by blank lines. */
export function readDocs(): string {
  return docFiles()
    .map((file) => readFileSync(path.join(REPO_ROOT, file), 'utf8'))
    .join('\n\n');
}
