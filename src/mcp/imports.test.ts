// `import 'plannav/mcp'` loads neither the MCP SDK nor a browser driver: the SDK is an optional peer
// loaded when a server connects, and the run set-up (Playwright) when a tool first needs a browser,
// so `mcpActions` works without either installed. Walks the static value imports of the entry.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');

/** The module specifiers a file imports for their values, statically (type-only imports and dynamic `import()` left out). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
      const named = clause?.namedBindings;
      const onlyTypes = clause && !clause.name && named && ts.isNamedImports(named) && named.elements.every((element) => element.isTypeOnly);
      if (!onlyTypes) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      const named = statement.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.every((element) => element.isTypeOnly)) continue;
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers;
}

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** Every package and source file reached from `entry` through static value imports. */
function reach(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith('.')) {
        const target = resolveLocal(file, specifier);
        if (target) queue.push(target);
      } else {
        packages.add(specifier);
      }
    }
  }
  return { files, packages };
}

describe('plannav/mcp imports', () => {
  it('loads neither the MCP SDK nor Playwright (nor the run set-up) when imported', () => {
    const { files, packages } = reach(join(root, 'src/mcp/index.ts'));
    const named = [...packages].filter((name) => name.startsWith('@modelcontextprotocol/') || name.startsWith('playwright') || name.startsWith('puppeteer'));
    expect(named).toEqual([]);
    const heavy = [...files]
      .map((file) => relative(root, file))
      .filter((file) => /^src\/(playwright|puppeteer|chromium|demo)\/|^src\/front\/run-session\.ts$/.test(file));
    expect(heavy).toEqual([]);
    // The walk itself works: it reached the server and the core.
    expect([...files].map((file) => relative(root, file))).toEqual(expect.arrayContaining(['src/mcp/server.ts', 'src/index.ts']));
  });
});
