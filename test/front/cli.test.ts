// `plannav run --demo`, `replay`, `export` and `report` from the outside, as a person or a script
// runs them: a child process, its stdout, stderr, exit code and the files it leaves. The demo serves
// its shop on 127.0.0.1 and uses its scripted model, so no key and no network are needed.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI_ESCAPE, cleanEnv, lines, runCli, type CliResult } from '../helpers/front-cli';

/** One NDJSON line of `--json`: an executor event or the summary. */
type JsonLine = { readonly type: string } & Record<string, unknown>;

/** Every line of `stdout` parsed as JSON; fails the test naming the first line that is not an object with a string `type`. */
function ndjson(stdout: string): JsonLine[] {
  return lines(stdout).map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`stdout line ${index + 1} is not JSON: ${line}`);
    }
    if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
      throw new Error(`stdout line ${index + 1} has no string "type": ${line}`);
    }
    return value as JsonLine;
  });
}

let work: string;
/** `plannav run --demo --out <human>`: the default, human-readable output. */
let human: CliResult;
let humanOut: string;
/** `plannav run --demo --json --output-schema … --out <json>`. */
let json: CliResult;
let jsonOut: string;

// A JSON Schema for the demo's answer: the item and its price (`--output-schema` turns it into typed `data`).
const itemSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The item put in the cart' }, price: { type: 'number', description: 'Its price in dollars' } },
  required: ['name', 'price'],
  additionalProperties: false,
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'plannav-cli-test-'));
  humanOut = join(work, 'human');
  jsonOut = join(work, 'json');
  const schemaFile = join(work, 'item.schema.json');
  await writeFile(schemaFile, JSON.stringify(itemSchema));
  // Two runs side by side: each starts its own shop and browser.
  [human, json] = await Promise.all([
    runCli(['run', '--demo', '--out', humanOut], { timeoutMs: 150_000 }),
    runCli(['run', '--demo', '--json', '--output-schema', schemaFile, '--out', jsonOut], { timeoutMs: 150_000 }),
  ]);
}, 180_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('plannav run --demo (human output)', () => {
  it('completes with exit 0, the plan and action lines and a summary naming the history file', () => {
    expect(human.timedOut, human.stderr).toBe(false);
    expect(human.code, `stdout:\n${human.stdout}\nstderr:\n${human.stderr}`).toBe(0);
    const out = lines(human.stdout);
    // One line per Planner decision: the demo's Planner plans at least once.
    expect(out.some((line) => /\bplan\b/i.test(line))).toBe(true);
    // One line per action with its result: the demo opens the shop, clicks and ends with done.
    for (const action of ['go_to_url', 'click_element', 'done'])
      expect(
        out.some((line) => line.includes(action)),
        `an action line for ${action}`,
      ).toBe(true);
    const text = human.stdout.toLowerCase();
    for (const word of ['status', 'steps', 'model calls', 'tokens', 'duration']) expect(text, `the summary names ${word}`).toContain(word);
    expect(human.stdout).toContain(join(humanOut, 'history.json'));
    // The answer the scripted shopper reaches on the fixed shop (test/e2e/demo.test.ts works it out from the catalogue).
    expect(human.stdout).toContain('Blue bowl');
  });

  it('writes no ANSI escape codes when stdout is not a TTY', () => {
    expect(human.stdout.length).toBeGreaterThan(0);
    expect(human.stdout).not.toMatch(ANSI_ESCAPE);
    expect(human.stderr).not.toMatch(ANSI_ESCAPE);
  });

  it('saves history.json, run.gif and report.html in the --out folder', async () => {
    for (const file of ['history.json', 'run.gif', 'report.html']) expect(existsSync(join(humanOut, file)), file).toBe(true);
    const history = JSON.parse(await readFile(join(humanOut, 'history.json'), 'utf8')) as { steps?: unknown[] };
    expect(history.steps?.length).toBeGreaterThan(0);
    expect((await readFile(join(humanOut, 'run.gif'))).subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(await readFile(join(humanOut, 'report.html'), 'utf8')).toContain('<html');
  });
});

describe('plannav run --demo --json', () => {
  it('prints only NDJSON on stdout: executor events, then one summary line with the status and the files', () => {
    expect(json.timedOut, json.stderr).toBe(false);
    expect(json.code, `stderr:\n${json.stderr}`).toBe(0);
    const events = ndjson(json.stdout);
    const types = events.map((event) => event.type);
    for (const type of ['task-start', 'step-start', 'action-end', 'task-end']) expect(types, type).toContain(type);
    expect(types.filter((type) => type === 'summary')).toHaveLength(1);
    const summary = events.at(-1) as JsonLine;
    expect(summary.type).toBe('summary');
    expect(summary.status).toBe('ok');
    expect(summary.success).toBe(true);
    expect(summary.finalAnswer).toEqual(expect.stringContaining('Blue bowl'));
    // `steps` counts the Navigator's steps (the Planner's and the Validator's step-start events name their actor).
    expect(summary.steps).toBe(events.filter((event) => event.type === 'step-start' && event.actor === 'navigator').length);
    expect(summary.modelCalls).toEqual(expect.any(Number));
    expect(summary.modelCalls as number).toBeGreaterThan(0);
    expect(summary.usage).toEqual(expect.any(Object));
    expect(summary.durationMs).toEqual(expect.any(Number));
    expect(summary.files).toEqual({ history: join(jsonOut, 'history.json'), gif: join(jsonOut, 'run.gif'), report: join(jsonOut, 'report.html') });
    for (const file of Object.values(summary.files as Record<string, string>)) expect(existsSync(file), file).toBe(true);
  });

  it('--output-schema gives typed data in the summary', () => {
    const summary = ndjson(json.stdout).at(-1) as JsonLine;
    const data = summary.data as { name?: unknown; price?: unknown } | undefined;
    expect(data).toEqual({ name: expect.any(String), price: expect.any(Number) });
    expect(data?.price as number).toBeLessThan(25);
  });
});

describe('plannav replay, export and report on a saved history', () => {
  it('replay --demo replays the saved history to the end without a model (no key in the environment)', { timeout: 90_000 }, async () => {
    const historyFile = join(humanOut, 'history.json');
    const replay = await runCli(['replay', historyFile, '--demo', '--json'], { env: cleanEnv(), timeoutMs: 60_000 });
    expect(replay.timedOut, replay.stderr).toBe(false);
    expect(replay.code, `stdout:\n${replay.stdout}\nstderr:\n${replay.stderr}`).toBe(0);
    const events = ndjson(replay.stdout);
    expect(events.filter((event) => event.type === 'replay-step').length).toBeGreaterThan(0);
    const summary = events.at(-1) as JsonLine;
    expect(summary.type).toBe('summary');
    expect(summary.status).toBe('ok');
    // Replayed from the record: no model was called.
    expect(summary.modelCalls ?? 0).toBe(0);
  });

  it('export --playwright prints a Playwright test on stdout, or writes it with --out', { timeout: 90_000 }, async () => {
    const historyFile = join(humanOut, 'history.json');
    const printed = await runCli(['export', historyFile, '--playwright'], { timeoutMs: 30_000 });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('test(');
    expect(printed.stdout).toContain('goto(');

    const specFile = join(work, 'demo.spec.ts');
    const written = await runCli(['export', historyFile, '--playwright', '--out', specFile], { timeoutMs: 30_000 });
    expect(written.code, written.stderr).toBe(0);
    expect(await readFile(specFile, 'utf8')).toContain('test(');
  });

  it('report writes run.gif and report.html for a saved history', { timeout: 90_000 }, async () => {
    const reportOut = join(work, 'report');
    const report = await runCli(['report', join(jsonOut, 'history.json'), '--out', reportOut], { timeoutMs: 60_000 });
    expect(report.code, report.stderr).toBe(0);
    expect((await readFile(join(reportOut, 'run.gif'))).subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const html = await readFile(join(reportOut, 'report.html'), 'utf8');
    const history = JSON.parse(await readFile(join(jsonOut, 'history.json'), 'utf8')) as { steps: unknown[] };
    // One card per step, as createRunReport writes them (test/e2e/demo.test.ts).
    expect(html.split('<article class="step').length - 1).toBe(history.steps.length);
  });
});
