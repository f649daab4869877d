// `plannav run --demo` at a terminal: colour (and a spinner) on a TTY, and with NO_COLOR not one
// ANSI escape code, though stdout is still a TTY. The TTY comes from util-linux `script`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI_ESCAPE, cleanEnv, runCliInTty, type CliResult } from '../helpers/front-cli';

let work: string;
let coloured: CliResult;
let noColor: CliResult;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'plannav-cli-tty-'));
  [coloured, noColor] = await Promise.all([
    runCliInTty(['run', '--demo', '--out', join(work, 'colour')], { env: cleanEnv({ TERM: 'xterm-256color' }), timeoutMs: 90_000 }),
    runCliInTty(['run', '--demo', '--out', join(work, 'no-color')], { env: cleanEnv({ TERM: 'xterm-256color', NO_COLOR: '1' }), timeoutMs: 90_000 }),
  ]);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('plannav run on a terminal', () => {
  it('uses colour on a TTY', () => {
    expect(coloured.timedOut, coloured.stdout).toBe(false);
    expect(coloured.code, coloured.stdout).toBe(0);
    expect(coloured.stdout).toMatch(ANSI_ESCAPE);
  });

  it('with NO_COLOR prints no ANSI escape code at all, and still the summary', () => {
    expect(noColor.timedOut, noColor.stdout).toBe(false);
    expect(noColor.code, noColor.stdout).toBe(0);
    expect(noColor.stdout).not.toMatch(ANSI_ESCAPE);
    expect(noColor.stdout.toLowerCase()).toContain('model calls');
    expect(noColor.stdout).toContain(join(work, 'no-color', 'history.json'));
  });
});
