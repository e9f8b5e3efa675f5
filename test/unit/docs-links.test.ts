/**
 * README.md and the guides under docs/ hold together: every relative link names a file that
 * exists and every `#anchor` a heading of its file; each guide opens with a paragraph that links
 * back to README, and README links every guide. The /docs page names every guide, and
 * docs/cli.md has a row for every command of the CLI.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main';
import { GUIDES } from '../../src/reference/guides';
import { brokenLinks, docFiles, headingAnchors, headingSlug, markdownLinks, REPO_ROOT } from '../support/docs';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('links in README.md, docs/*.md, SECURITY.md and BENCHMARKS.md', () => {
  it.each([...docFiles(), 'SECURITY.md', 'BENCHMARKS.md'])('%s: every relative link and #anchor resolves', (file) => {
    expect(brokenLinks(REPO_ROOT, file, read(file))).toEqual([]);
  });

  it('each guide opens with a paragraph that links back to README', () => {
    const without = docFiles()
      .filter((file) => file !== 'README.md')
      .filter((file) => {
        const [title = '', paragraph = ''] = read(file).split('\n\n', 2);
        return !/^# [^\n]+$/.test(title) || !markdownLinks(paragraph).some((link) => link.target.startsWith('../README.md'));
      });
    expect(without).toEqual([]);
  });

  it('README links every guide', () => {
    const linked = new Set(markdownLinks(read('README.md')).map((link) => link.target.split('#')[0]));
    expect(docFiles().filter((file) => file !== 'README.md' && !linked.has(file))).toEqual([]);
  });
});

describe('the link check itself', () => {
  const sample = [
    '# Top',
    '## What `npm run dev` starts',
    '## Top',
    'See [ok](#what-npm-run-dev-starts), [twice](#top-1), [README](../README.md#two-commands).',
    'Broken: [a](#nowhere), [b](missing.md), [c](../README.md#no-such-heading), [d](../../outside.md).',
    '`[not a link](#in-code)`',
    '```md',
    '[not a link either](#in-a-fence)',
    '```',
  ].join('\n');

  it('finds links outside code only, and GitHub anchors for headings', () => {
    expect(markdownLinks(sample).map((link) => link.target)).toEqual([
      '#what-npm-run-dev-starts',
      '#top-1',
      '../README.md#two-commands',
      '#nowhere',
      'missing.md',
      '../README.md#no-such-heading',
      '../../outside.md',
    ]);
    expect([...headingAnchors(sample)]).toEqual(['top', 'what-npm-run-dev-starts', 'top-1']);
    expect(headingSlug('OpenAI clients: `…/v1/chat/completions`')).toBe('openai-clients-v1chatcompletions');
    expect(headingSlug('Five minutes: from clone to an agent that answers, with memory and a tool')).toBe(
      'five-minutes-from-clone-to-an-agent-that-answers-with-memory-and-a-tool',
    );
  });

  it('reports each broken link with its line', () => {
    expect(brokenLinks(REPO_ROOT, 'docs/sample.md', sample)).toEqual([
      '5: #nowhere (no heading #nowhere in docs/sample.md)',
      '5: missing.md (no such file)',
      '5: ../README.md#no-such-heading (no heading #no-such-heading in README.md)',
      '5: ../../outside.md (no such file)',
    ]);
  });
});

describe('the /docs page names the guides', () => {
  it('GUIDES is docs/*.md, every one', () => {
    const onDisk = docFiles()
      .filter((file) => file !== 'README.md')
      .map((file) => file.slice('docs/'.length));
    expect(GUIDES.map((g) => g.file).sort()).toEqual(onDisk.sort());
  });
});

describe('docs/cli.md', () => {
  it('has a row for every command of the CLI', () => {
    const rows = new Set([...read('docs/cli.md').matchAll(/^\| `agent-gateway ([^`]+)` \|/gm)].map((m) => m[1]));
    expect(COMMANDS.map((c) => c.path.join(' ')).filter((command) => !rows.has(command))).toEqual([]);
    expect(rows.size).toBe(COMMANDS.length);
  });
});
