/**
 * No import cycles in src/, type-only imports included: every relative `import`/`export ... from`
 * (and `import()` type) of every .ts file is resolved and the graph is walked depth-first.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile() && candidate.endsWith('.ts')) return candidate;
    } catch {
      // not this candidate
    }
  }
  return null;
}

/** The relative modules a file imports, type-only imports and `import('...')` types included. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.map((s) => resolveImport(file, s)).filter((p): p is string => p !== null);
}

/** Every cycle found by a depth-first walk, each as the list of files from its first to its last. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) walk(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) walk(file);
  return cycles;
}

describe('import graph of src/', () => {
  it('finds a cycle when there is one (the walk itself can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c']]);
    expect(
      importsOf(join(SRC, 'x.ts'), "import type { A } from './types';\nexport { B } from './app';\ntype C = import('./config').Config;"),
    ).toEqual([join(SRC, 'types.ts'), join(SRC, 'app.ts'), join(SRC, 'config.ts')]);
  });

  it('has no import cycles, type-only imports included', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(50);
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const cycles = findCycles(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' -> '));
    expect(cycles).toEqual([]);
  });
});
