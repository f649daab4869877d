// The type tests must be able to fail: on a copy of the sources whose outputSchema inference is
// broken on purpose (the option typed as a plain z.ZodType), public-api.test-d.ts must not compile.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve('.');
const tmp = mkdtempSync(join(tmpdir(), 'plannav-types-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Copies what the type tests compile against into `tmp`, applying `edit` to one source file. */
function copyWith(file: string, edit: (source: string) => string): void {
  cpSync(join(root, 'src'), join(tmp, 'src'), { recursive: true });
  cpSync(join(root, 'test/types'), join(tmp, 'test/types'), { recursive: true });
  cpSync(join(root, 'tsconfig.json'), join(tmp, 'tsconfig.json'));
  symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir');
  const path = join(tmp, file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after, `the edit of ${file} changed nothing: update this test to the code`).not.toBe(before);
  writeFileSync(path, after);
}

describe('type tests', () => {
  it('fail when the inference of result.data from outputSchema is broken', { timeout: 120_000 }, () => {
    copyWith('src/executor/options.ts', (source) =>
      source.replace('readonly outputSchema?: z.ZodType<TData> | undefined;', 'readonly outputSchema?: z.ZodType | undefined;'),
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'test/types/tsconfig.json'], {
      cwd: tmp,
      encoding: 'utf8',
    });
    const errors = tsc.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(tsc.status, tsc.stdout).not.toBe(0);
    // Only the assertions on the inferred data fail: the copy itself compiles.
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const line of errors) expect(line).toMatch(/^test\/types\/public-api\.test-d\.ts\(\d+,\d+\)/);
  });
});
