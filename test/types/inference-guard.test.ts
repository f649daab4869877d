// The type tests must be able to fail: with the outputSchema inference broken on purpose (the option typed as a plain
// z.ZodType), public-api.test-d.ts must not compile. The broken source is given to the compiler in memory, and only the
// two files concerned are checked (the type tests and the edited file), not the whole program a second time: `npm run
// typecheck` already compiles everything.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The compiler options of test/types/tsconfig.json, as tsc reads them. */
function compilerOptions(): ts.CompilerOptions {
  const configFile = join(root, 'test/types/tsconfig.json');
  const read = ts.readConfigFile(configFile, (path) => ts.sys.readFile(path));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, join(root, 'test/types')).options;
}

/** The messages of `files` (paths under the root) in a program where `edited` reads as `edit` makes it, one line each. */
function diagnosticsWith(edited: string, edit: (source: string) => string, files: readonly string[]): string[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const editedPath = join(root, edited);
  const before = readFileSync(editedPath, 'utf8');
  const after = edit(before);
  expect(after, `the edit of ${edited} changed nothing: update this test to the code`).not.toBe(before);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    resolve(fileName) === editedPath ? ts.createSourceFile(fileName, after, languageVersion, true) : getSourceFile(fileName, languageVersion, ...rest);
  const program = ts.createProgram({ rootNames: [join(root, 'test/types/public-api.test-d.ts')], options, host });
  return files.flatMap((file) => {
    const source = program.getSourceFile(join(root, file));
    if (!source) throw new Error(`${file} is not in the program`);
    return program.getSemanticDiagnostics(source).map((diagnostic) => {
      const { line } = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0) : { line: -1 };
      return `${file}(${line + 1}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  });
}

describe('type tests', () => {
  const files = ['test/types/public-api.test-d.ts', 'src/executor/options.ts'];

  it('compile as they are (the control)', { timeout: 120_000 }, () => {
    expect(diagnosticsWith('src/executor/options.ts', (source) => `${source}\n// unchanged but for this line\n`, files)).toEqual([]);
  });

  it('fail when the inference of result.data from outputSchema is broken', { timeout: 120_000 }, () => {
    const errors = diagnosticsWith(
      'src/executor/options.ts',
      (source) => source.replace('readonly outputSchema?: z.ZodType<TData> | undefined;', 'readonly outputSchema?: z.ZodType | undefined;'),
      files,
    );
    // Only the assertions on the inferred data fail: the edited file itself compiles.
    expect(errors.length, errors.join('\n')).toBeGreaterThanOrEqual(2);
    for (const line of errors) expect(line).toMatch(/^test\/types\/public-api\.test-d\.ts\(\d+\)/);
  });
});
