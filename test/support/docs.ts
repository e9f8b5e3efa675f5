/**
 * The documentation as tests read it: README.md (the door: what this is, two commands, the
 * five-minute path, where to read on) and the guides under docs/. A test that asks "do the docs
 * say X" reads `readDocs()`, so it holds wherever a section lives; the link check reads the files
 * one by one with `markdownLinks` and `headingAnchors`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

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

/** The text outside fenced code blocks, line by line (a fenced line becomes empty, so line numbers hold). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opener) {
      fence = opener;
      return '';
    }
    if (fence !== undefined) {
      if (opener?.startsWith(fence)) fence = undefined;
      return '';
    }
    return line;
  });
}

export interface MarkdownLink {
  line: number;
  target: string;
}

/** Every inline link `[text](target)` outside code (fenced blocks and `code spans`). */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(markdown).forEach((text, index) => {
    const prose = text.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: index + 1, target: match[1] ?? '' });
    }
  });
  return links;
}

/**
 * GitHub's anchor for a heading's text: inline markup dropped, lower case, every character but
 * letters, digits, `_`, `-` and spaces removed, spaces turned into `-`.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings, a repeated one suffixed `-1`, `-2`... as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
