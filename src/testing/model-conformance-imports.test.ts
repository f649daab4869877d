// `plannav/testing` must stay importable and bundleable where Node's modules do not exist
// (ScriptedLLM in a browser or extension test): its modules reach `node:` modules only through
// node-builtins.ts, at run time, never by an import or an `import()` a bundler would resolve.
// Type-only imports are erased and allowed. test/bundle/ bundles and runs the packed package.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const folder = join('src', 'testing');
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? '');

/** The specifiers `file` imports at load time: import and export declarations that are not type-only. */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      statement.importClause?.phaseModifier !== ts.SyntaxKind.TypeKeyword &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const bindings = statement.importClause?.namedBindings;
      const onlyTypes =
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly) &&
        !statement.importClause?.name;
      if (!onlyTypes) found.push(statement.moduleSpecifier.text);
    }
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier))
      found.push(statement.moduleSpecifier.text);
  }
  return found;
}

/** The literal specifiers of `import()` calls in `file`: bundlers resolve them as they do imports. */
function dynamicImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteralLike(specifier)) found.push(specifier.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('plannav/testing imports', () => {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(folder, name));

  it('finds the kit\u2019s modules', () => {
    expect(files).toContain(join(folder, 'model-conformance-server.ts'));
  });

  it('no module imports a Node builtin at load time', () => {
    const bad = files.flatMap((file) =>
      staticImports(file)
        .filter(isBuiltin)
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(bad).toEqual([]);
  });

  it('no module imports a Node builtin with import()', () => {
    const bad = files.flatMap((file) =>
      dynamicImports(file)
        .filter(isBuiltin)
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(bad).toEqual([]);
  });

  it('tells a load-time import from a type-only one', () => {
    const probe = join(folder, 'model-conformance-server.ts');
    expect(readFileSync(probe, 'utf8')).toContain("import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http'");
    expect(staticImports(probe).filter(isBuiltin)).toEqual([]);
    expect(staticImports(join(folder, 'model-conformance-imports.test.ts')).filter(isBuiltin)).toEqual(['node:fs', 'node:module', 'node:os', 'node:path']);
  });

  it('finds the literal specifiers of import(), not a variable one', () => {
    const probe = join(mkdtempSync(join(tmpdir(), 'plannav-imports-')), 'probe.ts');
    writeFileSync(probe, "const id = 'node:http';\nawait import('node:fs/promises');\nawait import(`./local`);\nawait import(id);\n");
    try {
      expect(dynamicImports(probe)).toEqual(['node:fs/promises', './local']);
      expect(dynamicImports(probe).filter(isBuiltin)).toEqual(['node:fs/promises']);
    } finally {
      rmSync(dirname(probe), { recursive: true, force: true });
    }
  });
});
