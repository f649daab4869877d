// `plannav/testing` must stay importable where Node's modules do not exist (ScriptedLLM in a
// browser or extension test): its modules may load `node:` modules only dynamically, when a
// conformance server starts. Type-only imports are erased and allowed.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
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

  it('tells a load-time import from a type-only one', () => {
    const probe = join(folder, 'model-conformance-server.ts');
    expect(readFileSync(probe, 'utf8')).toContain("import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http'");
    expect(staticImports(probe).filter(isBuiltin)).toEqual([]);
    expect(staticImports(join(folder, 'model-conformance-imports.test.ts')).filter(isBuiltin)).toEqual(['node:fs', 'node:module', 'node:path']);
  });
});
