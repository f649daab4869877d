// Ctrl-C, the agent's questions and secrets on `plannav run --demo`, from the outside.
//
// SIGINT: the demo runs several Navigator steps (open the shop, accept the cookie banner, open the
// section, filter, open the item, add it, done), each a browser action of its own, so a SIGINT sent
// when the first action's `action-end` line appears lands while the task still runs; the signal is
// sent the moment that line is read, without any fixed wait.
//
// ask_human: the demo's scripted model asks one question first when the task says "ask me"
// (contract, `plannav ui` section); the command prints it on stderr and reads the answer from stdin.
//
// Secrets: the dotenv file's value is a text the demo's pages and its answer show ("Blue bowl",
// which test/front/cli.test.ts sees in a run without secrets), so a sink that forgot redaction
// would print it.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runCli, runCliAndSignal, startCli } from '../helpers/front-cli';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'plannav-cli-signals-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The first `action-end` event line of `--json` output. */
const isActionEnd = (line: string): boolean => {
  try {
    return (JSON.parse(line) as { type?: unknown }).type === 'action-end';
  } catch {
    return false;
  }
};

describe('Ctrl-C during plannav run', () => {
  it('once: cancels the task, still saves the history and exits 130', { timeout: 90_000 }, async () => {
    const out = join(work, 'sigint');
    const result = await runCliAndSignal(['run', '--demo', '--json', '--out', out], { stream: 'stdout', line: isActionEnd }, { timeoutMs: 80_000 });
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(130);

    const events = lines(result.stdout).map((line) => JSON.parse(line) as { type: string } & Record<string, unknown>);
    const summary = events.at(-1);
    expect(summary?.type).toBe('summary');
    expect(summary?.status).toBe('cancelled');
    expect(summary?.success).not.toBe(true);
    // The run stopped early: the demo's last action (done) never ran.
    expect(events.some((event) => event.type === 'action-end' && event.action === 'done')).toBe(false);

    const historyFile = join(out, 'history.json');
    expect(existsSync(historyFile)).toBe(true);
    const history = JSON.parse(await readFile(historyFile, 'utf8')) as { steps: { actions: { name: string }[] }[] };
    const actions = history.steps.flatMap((step) => step.actions.map((action) => action.name));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions).not.toContain('done');
  });

  it('twice: exits 130 at once', { timeout: 90_000 }, async () => {
    const cli = startCli(['run', '--demo', '--json', '--out', join(work, 'sigint-twice')], { timeoutMs: 80_000 });
    await cli.waitForLine('stdout', isActionEnd, 80_000).catch(async (error: unknown) => {
      cli.kill('SIGKILL');
      await cli.done;
      throw error;
    });
    cli.kill('SIGINT');
    cli.kill('SIGINT');
    const result = await cli.done;
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(130);
  });
});

describe('--secrets-file', () => {
  it('never prints a secret value: not on stdout or stderr, not in the history or the report', { timeout: 90_000 }, async () => {
    const secretsFile = join(work, 'shop.env');
    await writeFile(secretsFile, '# what the shop must not see printed\nSHOP_ITEM="Blue bowl"\n');
    const out = join(work, 'secrets');
    const result = await runCli(['run', '--demo', '--secrets-file', secretsFile, '--out', out], { timeoutMs: 80_000 });
    expect(result.timedOut, result.stderr).toBe(false);
    // The run ended by itself (done or failed), it was not refused as bad usage.
    expect([0, 1], `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toContain(result.code);

    const history = await readFile(join(out, 'history.json'), 'utf8');
    const report = await readFile(join(out, 'report.html'), 'utf8');
    for (const [sink, text] of Object.entries({ stdout: result.stdout, stderr: result.stderr, history, report })) {
      expect(text.toLowerCase(), sink).not.toContain('blue bowl');
    }
    // The value was there to hide: the history holds its placeholder where the page showed it.
    expect(history).toContain('<secret>SHOP_ITEM</secret>');
  });
});

describe('the agent asks a question on the terminal', () => {
  it('prints the question on stderr, reads one line from stdin and goes on', { timeout: 90_000 }, async () => {
    const out = join(work, 'ask');
    const task = 'Ask me one question before you start. Find the cheapest blue item under $25 in the Kitchen section of the shop and add it to the cart.';
    const cli = startCli(['run', '--demo', task, '--out', out], { timeoutMs: 80_000, keepStdinOpen: true });
    const question = await cli
      .waitForLine('stderr', (line) => line.includes('?'), 80_000)
      .catch(async (error: unknown) => {
        cli.kill('SIGKILL');
        await cli.done;
        throw error;
      });
    expect(question.trim().length).toBeGreaterThan(1);
    cli.write('Yes, go ahead (answer 8841)\n');
    const result = await cli.done;
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    const history = await readFile(join(out, 'history.json'), 'utf8');
    // The answer reached the agent: the ask_human action's result holds it.
    expect(history).toContain('ask_human');
    expect(history).toContain('answer 8841');
    expect(result.stdout).toContain('Blue bowl');
  });
});
