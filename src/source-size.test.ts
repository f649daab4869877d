// Keeps the source files of src/ small enough to read whole: a file over the limit must say why in
// its opening comment, in a line that starts `// Over 600 lines:`. A file grows past the limit when
// it takes on a second job; the reason, written where the next reader starts, is the check on that.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = resolve(__dirname);
const MAX_LINES = 600;
const REASON = /^\/\/ Over 600 lines: \S.{20,}/m;

/** The hand-written sources: no tests, no generated bundle. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The comment lines a file opens with, before its first line of code. */
function openingComment(text: string): string {
  const lines = text.split('\n');
  const end = lines.findIndex((line) => line.trim() !== '' && !line.startsWith('//'));
  return lines.slice(0, end === -1 ? lines.length : end).join('\n');
}

describe('source file size', () => {
  it(`keeps every source file of src/ at ${MAX_LINES} lines or says why in its opening comment`, () => {
    const unexplained = sourceFiles(source).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines <= MAX_LINES || REASON.test(openingComment(text))) return [];
      return [`${relative(source, file)}: ${lines} lines`];
    });
    expect(unexplained, `split these files by responsibility, or open them with a line "// Over ${MAX_LINES} lines: <why>"`).toEqual([]);
  });

  it('reads a reason only from the opening comment', () => {
    expect(REASON.test(openingComment('// A module.\n// Over 600 lines: one table of the patterns, read top to bottom.\nconst a = 1;\n'))).toBe(true);
    expect(REASON.test(openingComment('// A module.\nconst a = 1;\n// Over 600 lines: one table of the patterns, read top to bottom.\n'))).toBe(false);
    expect(REASON.test(openingComment('// Over 600 lines: short\nconst a = 1;\n'))).toBe(false);
  });
});
