// The command in-process: help, version, bad usage as one `plannav: …` line with exit 2, a missing
// key naming its variable, and the commands that need no browser (export, report) on a saved history.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor } from '../index';
import { saveHistory } from '../node/index';
import { FakeBrowserDriver, ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/index';
import { main } from './main';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: '', stderr: '' };
  stdout.on('data', (chunk) => (chunks.stdout += String(chunk)));
  stderr.on('data', (chunk) => (chunks.stderr += String(chunk)));
  const code = await main(args, { stdout, stderr, stdin: new PassThrough(), env });
  return { code, ...chunks };
}

let folder: string;
let historyFile: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-cli-'));
  const browser = new FakeBrowserDriver({
    startUrl: 'https://shop.test/',
    pages: { 'https://shop.test/': { title: 'Shop', content: ['Welcome'] }, 'https://shop.test/cart': { title: 'Cart', content: ['Empty'] } },
  });
  const llm = new ScriptedLLM({
    responses: [
      scriptedPlan({ nextSteps: 'Open the cart' }),
      scriptedActions([{ go_to_url: { url: 'https://shop.test/cart' } }], { nextGoal: 'Open the cart' }),
      scriptedActions([{ done: { text: 'The cart is empty.', success: true } }]),
      scriptedPlan({ done: true, finalAnswer: 'The cart is empty.' }),
    ],
  });
  const result = await new Executor({ task: 'Is the cart at https://shop.test/ empty?', llm, browser, sensitiveActions: false }).execute();
  expect(result.status).toBe('ok');
  historyFile = join(folder, 'history.json');
  await saveHistory(historyFile, result.history);
});

afterAll(() => rm(folder, { recursive: true, force: true }));

describe('plannav (in-process)', () => {
  it('prints the overview for --help and exit 0; without a command, on stderr with exit 2', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Commands:[\s\S]*run[\s\S]*replay[\s\S]*export[\s\S]*report[\s\S]*demo[\s\S]*ui[\s\S]*mcp/);
    const bare = await run([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage: plannav <command>');
  });

  it.each(['run', 'demo', 'replay', 'export', 'report', 'ui', 'mcp'])('prints the usage of %s for --help, exit 0', async (command) => {
    const { code, stdout, stderr } = await run([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`plannav ${command}`);
    expect(stderr).toBe('');
  });

  it('prints the version of package.json', async () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect((await run(['--version'])).stdout.trim()).toBe(manifest.version);
  });

  it.each([
    [['fly'], /^plannav: unknown command "fly"/],
    [['run', '--bogus'], /^plannav: unknown flag --bogus/],
    [['run'], /^plannav: run needs a task/],
    [['run', 'a task', '--max-steps', 'lots', '--demo'], /^plannav: --max-steps must be an integer/],
    [['run', 'a task', '--scope', 'all', '--demo'], /^plannav: --scope must be navigation or all-requests/],
    [['run', 'a task', '--model', 'gpt-4.1'], /^plannav: Option `model` must be provider:model/],
    [['replay'], /^plannav: replay needs a history file/],
    [['replay', 'missing.json'], /^plannav: no such file: missing\.json/],
    [['replay', 'h.json', '--on-failure', 'ask-model'], /^plannav: --on-failure ask-model needs --model/],
    [['export', 'h.json'], /^plannav: export needs a format: --playwright/],
  ])('%j is bad usage: one line on stderr, exit 2', async (args, message) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names the environment variable when the model has no key, exit 2 and no stack', async () => {
    const { code, stderr } = await run(['run', 'a task', '--model', 'anthropic:claude-sonnet-4-5']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'plannav: The model anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY in the environment, or choose another model.\n',
    );
  });

  it('exports a saved history as a Playwright test on stdout, or into --out', async () => {
    const printed = await run(['export', historyFile, '--playwright']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('from "@playwright/test"');
    expect(printed.stdout).toContain('https://shop.test/cart');
    const out = join(folder, 'cart.spec.ts');
    const written = await run(['export', historyFile, '--playwright', '--out', out]);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(printed.stdout);
  });

  it('writes the report (and the GIF) of a saved history into --out, leaving the history alone', async () => {
    const before = await stat(historyFile);
    const out = join(folder, 'report');
    const { code, stdout } = await run(['report', historyFile, '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toContain(join(out, 'report.html'));
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('Is the cart at https://shop.test/ empty?');
    expect((await stat(historyFile)).mtimeMs).toBe(before.mtimeMs);
  });

  it('says a file that is not a history is not one, exit 1', async () => {
    const { code, stderr } = await run(['export', join(__dirname, '..', '..', 'package.json'), '--playwright']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^plannav: not a plannav history: /);
  });
});
