// The command's usage contract, no browser needed: `--help` on every command, `--version`, and bad
// usage (unknown command or flag, missing argument, missing API key) as exit 2 with one line on
// stderr that starts `plannav: ` and carries no stack trace.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, lines, repoRoot, runCli, type CliResult } from '../helpers/front-cli';

const COMMANDS = ['run', 'replay', 'export', 'report', 'demo', 'ui', 'mcp'] as const;

/** Exit 2, and stderr is exactly one line: `plannav: <what was wrong>`, no stack trace. */
function expectUsageError(result: CliResult, mentions: RegExp): void {
  expect(result.timedOut, result.stderr).toBe(false);
  expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(2);
  const errorLines = lines(result.stderr).filter((line) => line.trim() !== '');
  expect(errorLines, result.stderr).toHaveLength(1);
  expect(errorLines[0]).toMatch(/^plannav: \S/);
  expect(errorLines[0]).toMatch(mentions);
  expect(result.stderr).not.toMatch(/^\s+at .+[(:]\d+/m);
  // Nothing else ran: no event lines, no summary.
  expect(result.stdout).not.toMatch(/"type"\s*:\s*"summary"/);
}

describe('plannav --help and --version', () => {
  it('prints the usage of every command on stdout and exits 0', async () => {
    const results = await Promise.all([
      runCli(['--help'], { timeoutMs: 30_000 }),
      ...COMMANDS.map((command) => runCli([command, '--help'], { timeoutMs: 30_000 })),
    ]);
    const [top, ...perCommand] = results;
    expect(top?.code, top?.stderr).toBe(0);
    for (const command of COMMANDS) expect(top?.stdout, `the top-level help lists ${command}`).toMatch(new RegExp(`\\b${command}\\b`));

    COMMANDS.forEach((command, index) => {
      const result = perCommand[index] as CliResult;
      expect(result.code, `${command} --help: ${result.stderr}`).toBe(0);
      expect(result.stdout, `${command} --help`).toMatch(new RegExp(`plannav ${command}\\b`));
    });
    const run = perCommand[0] as CliResult;
    for (const flag of ['--model', '--start-url', '--allow', '--deny', '--secrets-file', '--max-steps', '--output-schema', '--out', '--json', '--demo']) {
      expect(run.stdout, `run --help names ${flag}`).toContain(flag);
    }
    const mcp = perCommand[COMMANDS.indexOf('mcp')] as CliResult;
    for (const flag of ['--http', '--port', '--host', '--token']) expect(mcp.stdout, `mcp --help names ${flag}`).toContain(flag);
  });

  it('-h is --help', async () => {
    const [short, long] = await Promise.all([runCli(['run', '-h'], { timeoutMs: 30_000 }), runCli(['run', '--help'], { timeoutMs: 30_000 })]);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version'], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toContain(version);
  });
});

describe('bad usage: exit 2 and one line on stderr', () => {
  it('an unknown command', async () => {
    expectUsageError(await runCli(['frobnicate'], { timeoutMs: 30_000 }), /frobnicate/);
  });

  it('an unknown flag', async () => {
    expectUsageError(await runCli(['run', '--demo', '--no-such-flag'], { timeoutMs: 30_000 }), /--no-such-flag/);
  });

  it('a flag value of the wrong kind', async () => {
    expectUsageError(await runCli(['run', 'Find a thing', '--demo', '--max-steps', 'many'], { timeoutMs: 30_000 }), /max-steps/);
    expectUsageError(await runCli(['run', 'Find a thing', '--demo', '--scope', 'everything'], { timeoutMs: 30_000 }), /scope/);
  });

  it('run without a task (and without --demo)', async () => {
    expectUsageError(await runCli(['run', '--model', 'openai:gpt-4.1'], { env: cleanEnv({ OPENAI_API_KEY: 'sk-test-not-used' }), timeoutMs: 30_000 }), /task/i);
  });

  it('replay, export and report without a history file', async () => {
    for (const command of ['replay', 'export', 'report']) {
      expectUsageError(await runCli(command === 'export' ? [command, '--playwright'] : [command], { timeoutMs: 30_000 }), /history/i);
    }
  });

  it('--model openai:gpt-4.1 without OPENAI_API_KEY names the missing key', async () => {
    const result = await runCli(['run', 'Find the cheapest blue bowl on https://shop.example', '--model', 'openai:gpt-4.1'], {
      env: cleanEnv(),
      timeoutMs: 30_000,
    });
    expectUsageError(result, /OPENAI_API_KEY/);
  });
});
