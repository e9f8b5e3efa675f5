/**
 * Links and headings of a markdown file, as GitHub renders them: the docs link check
 * (test/unit/docs-links.test.ts) and the package check (scripts/package-check.ts) read markdown
 * with these.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

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

/**
 * The broken links of one markdown file, as `line: target (why)`: a relative link whose file is
 * not under `root` (or leaves it), or whose `#anchor` is no heading of its markdown file.
 * `file` is the file's path relative to `root`; `absent(path)` says a missing file may be missing.
 * Links with a scheme (`https:`, `mailto:`) are not checked.
 */
export function brokenLinks(root: string, file: string, markdown: string, absent: (resolved: string) => boolean = () => false): string[] {
  const broken: string[] = [];
  for (const { line, target } of markdownLinks(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [pathPart = '', anchor] = target.split('#', 2);
    if (pathPart === '') {
      if (!headingAnchors(markdown).has(anchor ?? '')) broken.push(`${line}: ${target} (no heading #${anchor} in ${file})`);
      continue;
    }
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
    const absolute = path.join(root, resolved);
    if (resolved.startsWith('..') || !existsSync(absolute)) {
      if (!absent(resolved)) broken.push(`${line}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(absolute).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${line}: ${target} (an anchor into something that is not a markdown file)`);
    } else if (!headingAnchors(readFileSync(absolute, 'utf8')).has(anchor)) {
      broken.push(`${line}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}
