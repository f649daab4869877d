// The secrets canary suite (issue 21, "Secrets replaced at the source"): canary values given to
// the Executor through its public `secrets` option, shown by pages in every way a page can show
// them (text, attributes, URLs, split over elements, one character per box, with separators, partly
// bold, in other cases, encoded, in long lines, beside search terms), and the real loop driven over
// them: Executor + PlaywrightDriver + the OpenAI adapter against a loopback chat-completions server
// that answers with scripted tool calls. Every place a value could leave through is then scanned
// for any piece of 6 or more characters of any canary: the requests the model server received,
// every event, the history and its saved file, the journal, the model cassette, the HTML report,
// the result, the error with its causes, and what the run printed. Written from the README alone,
// without reading how plannav redacts.
//
// Not scanned: screenshots and the GIF (pixels, documented as not covered; screenshots stay off).
// A failing sink prints its hits with the text around each; the whole table is printed on every
// run, and PLANNAV_CANARY_DUMP=<folder> writes each sink's full text there.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineAction, Executor, type ExecutionResult, type ExecutorEventName } from 'plannav';
import { createRunReport, recordRun, saveHistory } from 'plannav/node';
import { OpenAIChatModel } from 'plannav/openai';
import { PlaywrightDriver } from 'plannav/playwright';
import { recordModelCalls } from 'plannav/testing';
import { startFakeOpenAI, type FakeOpenAIServer, type ProviderCall, type ProviderReply } from '../helpers/canary-openai-server';
import { formatHitTable, scanSinks, type Canary, type CanaryHit, type Sink } from '../helpers/canary-scanner';
import { fillTemplate, percentEncodeAll, startCanarySite, type CanarySite } from '../helpers/canary-site';

/** The canaries: each at least 12 characters, letters and digits mixed, a 10-digit code, one with URL- and HTML-special characters. */
const secretValues = {
  password: 'Vq7RmZ2kXw9PtL4s',
  apiToken: 'tk9J3fH8cQ2vN6xB5wRy',
  code: '7305916482',
  passphrase: 'Gq5&Nw8+Yt3/Zr6',
  accountKey: 'Hq4Lw8Zt3Nc6Pj',
} as const;
const canaries: Canary[] = Object.entries(secretValues).map(([name, value]) => ({ name, value }));

/** Values of the same shapes that are not secrets: a page filled with them must give no hit. */
const decoyValues = {
  password: 'Lm3XpQ8vTz6WcJ1k',
  apiToken: 'pz4M8wK2rV7bC5nH1sDe',
  code: '4862097153',
  passphrase: 'Rk2&Vb7+Mx9/Qw4',
  accountKey: 'Bw5Nc2Kv8Rt1Xm',
};

/** `/account` redirects here: the page's own URL carries values, in the path and percent-encoded in the query. */
const accountPath = `/account/${secretValues.accountKey}/overview?t=${percentEncodeAll(secretValues.apiToken)}&p=${encodeURIComponent(secretValues.passphrase)}`;

/** Every event an Executor emits; the type makes a new event name a compile error here until it is listed. */
const everyEvent: Record<ExecutorEventName, true> = {
  'task-start': true,
  'sensitive-action': true,
  'task-end': true,
  'task-pause': true,
  'task-resume': true,
  'task-cancel': true,
  'step-start': true,
  'step-end': true,
  'plan-end': true,
  'validation-end': true,
  'navigator-output': true,
  'action-start': true,
  'action-end': true,
  'model-call-start': true,
  'model-call-end': true,
  'model-fallback': true,
  'model-retry': true,
  'human-question': true,
  'human-answer': true,
  'url-blocked': true,
  'injection-detected': true,
  warning: true,
  'replay-step': true,
  download: true,
};

/** What the deliberately leaky action returned, kept before plannav sees it (the positive control's synthetic sink). */
const leakyReturns: string[] = [];

/** A host's own action that leaks: it returns the raw token and pieces of it in its result. */
const readVault = defineAction({
  name: 'read_vault',
  description: 'Read an entry of the password vault',
  schema: z.object({ entry: z.string().describe('The entry to read') }),
  handler: async ({ entry }) => {
    const result = `Vault entry ${entry}: ${secretValues.apiToken} (starts ${secretValues.apiToken.slice(0, 8)}, ends ${secretValues.apiToken.slice(-8)})`;
    leakyReturns.push(result);
    return result;
  },
});

// ---- the scripted model ----

function plan(fields: { done?: boolean; nextSteps?: string; finalAnswer?: string }): ProviderReply {
  return {
    object: {
      observation: 'Looking at the workspace pages.',
      challenges: 'None so far.',
      done: fields.done ?? false,
      next_steps: fields.nextSteps ?? '',
      final_answer: fields.finalAnswer ?? '',
      reasoning: 'Following the task step by step.',
      web_task: true,
    },
  };
}

function act(actions: Record<string, unknown>[], nextGoal: string): ProviderReply {
  return {
    object: { current_state: { evaluation_previous_goal: 'Unknown', memory: 'Working through the account pages.', next_goal: nextGoal }, action: actions },
  };
}

/** The index of the first element line of the state that matches `pattern` (as a model reads it). */
function indexOf(stateText: string, pattern: RegExp): number | undefined {
  for (const line of stateText.split('\n')) {
    const match = /\[(\d+)\]</.exec(line);
    if (match && pattern.test(line)) return Number(match[1]);
  }
  return undefined;
}

/** The extraction model echoes what it was given, as a model that quotes the page would. */
function extractionReply(call: ProviderCall): ProviderReply {
  return { object: { extracted: `The page reads: ${call.lastUserText.slice(0, 4000)}` } };
}

/** The main run: read the account page in every way, use the leaky action, sign in with the secrets, finish. */
function mainScript(origin: string): (call: ProviderCall) => ProviderReply {
  let navigatorStep = 0;
  let proposedDone = false;
  return (call) => {
    if (call.toolName === 'planner_output') {
      return proposedDone
        ? plan({ done: true, finalAnswer: 'Signed in; the account page lists an API token, a recovery key and a backup code.' })
        : plan({ nextSteps: `Read ${origin}/account, then sign in at ${origin}/login.` });
    }
    if (call.toolName === 'validator_output') return { object: { is_valid: true, reason: 'The answer fits the task.' } };
    // The trust-boundary gate asks the Planner's model to confirm a sign-in form and the answer: the user asked for both.
    if (call.toolName === 'planner_confirmation') return { object: { confirmed: true, reason: 'The user asked to sign in and report.' } };
    if (call.toolName !== 'navigator_output') return extractionReply(call);
    const state = call.lastUserText;
    const step = navigatorStep++;
    switch (step) {
      case 0:
        return act([{ go_to_url: { url: `${origin}/account` } }], 'Open the account page');
      case 1:
        return act([{ search_page: { pattern: 'Recovery', context_chars: 12 } }], 'Find the recovery details');
      case 2:
        return act([{ search_page: { pattern: '\\d{4}', regex: true, context_chars: 8 } }], 'Find numbers on the page');
      case 3:
        return act([{ search_page: { pattern: 'token', context_chars: 10, max_results: 20 } }], 'Find the token mentions');
      case 4:
        return act([{ extract_content: { goal: 'List every account detail shown on the page', include_links: true } }], 'Read the whole page');
      case 5:
        return act([{ scroll_to_text: { text: 'Notes' } }], 'Read the notes');
      case 6:
        return act([{ scroll_to_bottom: {} }], 'See the end of the page');
      case 7:
        return act([{ read_vault: { entry: 'api' } }], 'Check the vault entry');
      case 8:
        return act([{ go_to_url: { url: `${origin}/login` } }], 'Open the sign-in page');
      case 9: {
        const fields: Array<[RegExp, string]> = [
          [/<input[^\n]*name="username"/, 'ada'],
          [/<input[^\n]*name="password"/, '<secret>password</secret>'],
          [/<input[^\n]*name="otp"/, '<secret>code</secret>'],
          [/<input[^\n]*name="token"/, '<secret>apiToken</secret>'],
        ];
        const actions = fields.flatMap(([pattern, text]) => {
          const index = indexOf(state, pattern);
          return index === undefined ? [] : [{ input_text: { index, text } }];
        });
        return act(actions.length > 0 ? actions : [{ scroll_to_top: {} }], 'Fill in the sign-in form');
      }
      case 10: {
        const button = indexOf(state, /<button[^\n]*Sign in/);
        return act(button === undefined ? [{ send_keys: { keys: 'Enter' } }] : [{ click_element: { index: button } }], 'Sign in');
      }
      default:
        proposedDone = true;
        return act([{ done: { text: 'Signed in to the workspace.', success: true } }], 'Report back');
    }
  };
}

/** The provider-error run: open the account page, then the server refuses the next call with a 400 that quotes the request. */
function errorScript(origin: string): (call: ProviderCall) => ProviderReply {
  let navigatorStep = 0;
  return (call) => {
    if (call.toolName === 'planner_output' && navigatorStep === 0) return plan({ nextSteps: `Read ${origin}/account.` });
    if (call.toolName === 'navigator_output' && navigatorStep === 0) {
      navigatorStep++;
      return act([{ go_to_url: { url: `${origin}/account` } }], 'Open the account page');
    }
    const text = call.lastUserText;
    const at = Math.max(0, text.indexOf('Account settings'));
    return {
      status: 400,
      body: {
        error: {
          message: `Invalid 'messages': the request could not be processed near: ${text.slice(at, at + 2500)}`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'invalid_value',
          request_echo: call.body,
        },
      },
    };
  };
}

// ---- running a scenario and collecting its sinks ----

interface ScenarioRun {
  readonly label: string;
  readonly provider: FakeOpenAIServer;
  readonly events: Array<{ type: string; event: unknown }>;
  readonly result: ExecutionResult | undefined;
  readonly thrown: unknown;
  readonly sinks: Sink[];
}

/** Every error of a chain (and of an AggregateError's list), with its own fields, as text. */
function describeErrorChain(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (value === undefined || value === null || seen.has(value) || depth > 12) return;
    seen.add(value);
    if (value instanceof Error) {
      const own: Record<string, unknown> = {};
      for (const key of Object.getOwnPropertyNames(value))
        if (key !== 'stack' && key !== 'cause') own[key] = (value as unknown as Record<string, unknown>)[key];
      parts.push(`${value.name}: ${value.message}`, value.stack ?? '', safeJson(own));
      if (value instanceof AggregateError) for (const inner of value.errors) visit(inner, depth + 1);
      visit(value.cause, depth + 1);
    } else parts.push(typeof value === 'string' ? value : safeJson(value));
  };
  visit(error, 0);
  return parts.join('\n');
}

/** JSON of anything: errors with their message and stack, maps and sets as lists, bytes left out. */
function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, inner: unknown) => {
      if (inner instanceof Uint8Array) return `<${inner.byteLength} bytes>`;
      if (inner instanceof Map) return [...inner.entries()];
      if (inner instanceof Set) return [...inner];
      if (inner instanceof Error) {
        const own = Object.fromEntries(Object.getOwnPropertyNames(inner).map((key) => [key, (inner as unknown as Record<string, unknown>)[key]]));
        return { ...own, name: inner.name, message: inner.message, stack: inner.stack, cause: inner.cause };
      }
      if (typeof inner === 'object' && inner !== null) {
        if (seen.has(inner)) return '<cycle>';
        seen.add(inner);
      }
      return inner;
    }) ?? ''
  );
}

/** What the process printed while `run` ran (stdout, stderr and the console); it is passed on as well. */
async function captureOutput<T>(run: () => Promise<T>): Promise<{ value: T; output: string }> {
  const spies: Array<{ readonly mock: { readonly calls: readonly (readonly unknown[])[] }; mockRestore(): void }> = [
    vi.spyOn(process.stdout, 'write'),
    vi.spyOn(process.stderr, 'write'),
    ...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((name) => vi.spyOn(console, name)),
  ];
  const asText = (arg: unknown): string => (typeof arg === 'string' ? arg : arg instanceof Uint8Array ? Buffer.from(arg).toString('utf8') : safeJson(arg));
  try {
    const value = await run();
    return { value, output: spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(asText).join(' '))).join('\n') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

async function readTree(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  const texts: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || /\.(jpe?g|png|gif)$/i.test(entry.name)) continue;
    texts.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

/** The sinks every scenario has, by kind; a scenario's sink is `<label>: <kind>`. */
const sinkKinds = [
  'provider requests',
  'events',
  'history (in memory)',
  'saved history file',
  'journal',
  'cassette',
  'report html',
  'result',
  'error chain',
  'stdout/stderr',
] as const;

let driver: PlaywrightDriver;
let site: CanarySite;
let workDir: string;
const runs: ScenarioRun[] = [];

async function runScenario(label: string, respond: (call: ProviderCall) => ProviderReply, validate: boolean): Promise<ScenarioRun> {
  const provider = await startFakeOpenAI(respond);
  const dir = join(workDir, label);
  const model = new OpenAIChatModel({
    provider: 'openai',
    model: 'canary-model',
    baseURL: provider.baseURL,
    apiKey: 'sk-canary-test-key',
    structuredOutput: 'tool',
  });
  const cassette = join(dir, 'cassette.json');
  const llm = recordModelCalls(model, cassette);
  const executor = new Executor({
    task: `Read the account details at ${site.origin}/account, then sign in at ${site.origin}/login with the saved password, code and token.`,
    llm,
    // The validator's requests go through the same adapter, so they are scanned too.
    ...(validate ? { validatorLLM: llm } : {}),
    browser: driver,
    secrets: secretValues,
    actions: [readVault],
    maxSteps: 18,
    maxFailures: 3,
    modelRetry: { retries: 0 },
    finalAnswerOnLimit: false,
  });
  const events: Array<{ type: string; event: unknown }> = [];
  for (const name of Object.keys(everyEvent) as ExecutorEventName[]) {
    executor.on(name, (event: unknown) => events.push({ type: name, event }));
  }
  const recording = recordRun(executor, join(dir, 'journal'));
  let result: ExecutionResult | undefined;
  let thrown: unknown;
  const { output } = await captureOutput(async () => {
    try {
      result = await executor.execute({ timeout: 60_000 });
    } catch (error) {
      thrown = error;
    } finally {
      recording.stop();
    }
  });
  await executor.close();
  await provider.close();
  const historyFile = join(dir, 'history.json');
  const reportFile = join(dir, 'report.html');
  if (result) {
    await saveHistory(historyFile, result.history);
    await createRunReport(result.history, reportFile, { title: `Secrets canary: ${label}` });
  }
  const readIfThere = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');
  const { history, ...rest } = result ?? ({} as Partial<ExecutionResult>);
  const texts: Record<(typeof sinkKinds)[number], string> = {
    'provider requests': provider.calls.map((call) => call.body).join('\n'),
    events: events.map((entry) => safeJson(entry)).join('\n'),
    'history (in memory)': safeJson(history),
    'saved history file': await readIfThere(historyFile),
    journal: await readTree(join(dir, 'journal')),
    cassette: await readIfThere(cassette),
    'report html': await readIfThere(reportFile),
    result: safeJson(rest),
    'error chain': [describeErrorChain(result?.error), describeErrorChain(thrown)].join('\n'),
    'stdout/stderr': output,
  };
  return { label, provider, events, result, thrown, sinks: sinkKinds.map((kind) => ({ name: `${label}: ${kind}`, text: texts[kind] })) };
}

const labels = ['main run', 'provider error run'] as const;
const sinkNames = labels.flatMap((label) => sinkKinds.map((kind) => `${label}: ${kind}`));
let hits: CanaryHit[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'plannav-secrets-canary-'));
  site = await startCanarySite(secretValues, accountPath);
  driver = await PlaywrightDriver.launch({ settle: { maxWaitMs: 2000 } });
  runs.push(await runScenario('main run', mainScript(site.origin), true));
  runs.push(await runScenario('provider error run', errorScript(site.origin), false));
  hits = scanSinks(
    runs.flatMap((run) => run.sinks),
    canaries,
  );
  // PLANNAV_CANARY_DUMP=<folder> keeps every sink's text there, to read what leaked where.
  const dump = process.env.PLANNAV_CANARY_DUMP;
  if (dump) {
    await mkdir(dump, { recursive: true });
    for (const sink of runs.flatMap((scenario) => scenario.sinks)) await writeFile(join(dump, `${sink.name.replace(/[^a-z0-9]+/gi, '-')}.txt`), sink.text);
  }
  // The table for the report, whatever the assertions say.
  console.log(`Secrets canary: hits per sink\n${formatHitTable(sinkNames, hits, 40)}`);
}, 120_000);

afterAll(async () => {
  await driver?.close();
  await site?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function run(label: (typeof labels)[number]): ScenarioRun {
  const found = runs.find((candidate) => candidate.label === label);
  if (!found) throw new Error(`The ${label} did not run.`);
  return found;
}

function actionEnds(scenario: ScenarioRun): Array<{ action: string; result: string | undefined; error: { message: string } | undefined }> {
  return scenario.events
    .filter((entry) => entry.type === 'action-end')
    .map((entry) => entry.event as { action: string; result: string | undefined; error: { message: string } | undefined });
}

describe('secrets canary: the runs did what the scan relies on', () => {
  it('the main run read the account page every scripted way, signed in and finished', () => {
    const main = run('main run');
    expect(main.thrown).toBeUndefined();
    expect(main.result?.status).toBe('ok');
    const ended = actionEnds(main);
    const names = ended.map((entry) => entry.action);
    for (const name of [
      'go_to_url',
      'search_page',
      'extract_content',
      'scroll_to_text',
      'scroll_to_bottom',
      'read_vault',
      'input_text',
      'click_element',
      'done',
    ]) {
      expect(names, `action ${name} ran`).toContain(name);
    }
    const failed = ended.filter((entry) => entry.error !== undefined).map((entry) => `${entry.action}: ${entry.error?.message}`);
    expect(failed).toEqual([]);
    const searches = ended.filter((entry) => entry.action === 'search_page');
    expect(searches).toHaveLength(3);
    for (const search of searches) expect(search.result ?? '').not.toMatch(/\b0 match/i);
    // The validator judged the answer, and the extraction model was called (a request that forced none of the agents' tools).
    expect(main.provider.calls.some((call) => call.toolName === 'validator_output')).toBe(true);
    expect(
      main.provider.calls.some((call) => !['planner_output', 'navigator_output', 'validator_output', 'planner_confirmation'].includes(call.toolName)),
    ).toBe(true);
    // The model saw the account page and, after the scroll, its end.
    expect(main.provider.calls.some((call) => call.lastUserText.includes('Account settings'))).toBe(true);
    expect(main.provider.calls.some((call) => call.lastUserText.includes('Below the fold'))).toBe(true);
    // And, scrolled to the notes, their long lines (where the view cuts lines).
    expect(main.provider.calls.some((call) => call.toolName === 'navigator_output' && call.lastUserText.includes('the quarterly report'))).toBe(true);
  });

  it('positive control: the sign-in form posted the real values to the site', () => {
    expect(site.posts).toHaveLength(1);
    expect(site.posts[0]?.fields).toMatchObject({
      username: 'ada',
      password: secretValues.password,
      otp: secretValues.code,
      token: secretValues.apiToken,
    });
  });

  it('the provider error run ended on the 400 whose body quotes the request, and that error reached the result', () => {
    const failing = run('provider error run');
    expect(failing.thrown).toBeUndefined();
    expect(failing.result?.status).toBe('failed');
    expect(failing.result?.error?.code).toBe('CHAT_MODEL_BAD_REQUEST');
    expect(failing.result?.error?.message).toContain('could not be processed near');
    const taskEnd = failing.events.find((entry) => entry.type === 'task-end')?.event as { error?: { code?: string } } | undefined;
    expect(taskEnd?.error?.code).toBe('CHAT_MODEL_BAD_REQUEST');
    // The refused request carried the account page, so the quote is of the page.
    const refused = failing.provider.calls.at(-1);
    expect(refused?.lastUserText).toContain('Account settings');
  });
});

describe('secrets canary: the scanner can fail', () => {
  it('catches the leaky action: its raw return value is a hit', () => {
    expect(leakyReturns.length).toBeGreaterThan(0);
    const found = scanSinks([{ name: 'leaky action, raw return', text: leakyReturns.join('\n') }], canaries);
    expect(found.map((hit) => hit.canary)).toContain('apiToken');
    // The whole token and both of its 8-character pieces.
    expect(found.filter((hit) => hit.canary === 'apiToken').length).toBeGreaterThanOrEqual(3);
  });

  it('catches every planted form of a value, and nothing in text with placeholders only', () => {
    const { password, apiToken, code, passphrase, accountKey } = secretValues;
    const planted: Array<[string, string, string]> = [
      ['a 6-character piece', `…cut here ${apiToken.slice(7, 13)}…`, 'apiToken'],
      ['upper case', `KEY ${accountKey.toUpperCase()}`, 'accountKey'],
      ['lower case', `pw ${password.toLowerCase()}`, 'password'],
      ['one digit per box, spaced', `Code: ${Array.from(code).join(' ')}`, 'code'],
      ['dashes between groups', `Key ${(accountKey.match(/.{1,4}/g) ?? []).join('-')}`, 'accountKey'],
      ['markdown bold inside', `Token ${apiToken.slice(0, 6)}**${apiToken.slice(6, 12)}**_${apiToken.slice(12)}_`, 'apiToken'],
      ['highlight marks inside', `…${code.slice(0, 4)}«${code.slice(4, 9)}»`, 'code'],
      [
        'one character per box, in attributes',
        Array.from(code)
          .map((digit, index) => `[${index + 12}]<input value="${digit}">Digit ${index + 1} />`)
          .join('\n'),
        'code',
      ],
      [
        'one character per box, labelled',
        Array.from(code)
          .map((digit) => `(field: ${digit})`)
          .join(' '),
        'code',
      ],
      ['split over two elements joined with a space', `${password.slice(0, 8)} ${password.slice(8)}`, 'password'],
      ['percent-encoded, every byte', percentEncodeAll(apiToken), 'apiToken'],
      ['form-encoded', new URLSearchParams({ p: passphrase }).toString(), 'passphrase'],
      ['base64', Buffer.from(password).toString('base64'), 'password'],
      ['HTML entities', passphrase.replace(/&/g, '&amp;').replace(/\+/g, '&#43;').replace(/\//g, '&#x2F;'), 'passphrase'],
      ['JSON \\u escapes', JSON.stringify(accountKey).replace(/[A-Z]/g, (letter) => `\\u${letter.charCodeAt(0).toString(16).padStart(4, '0')}`), 'accountKey'],
      ['in a JSON string', JSON.stringify({ message: `Bad request near "${apiToken.slice(3)}"` }), 'apiToken'],
    ];
    for (const [form, text, canary] of planted) {
      const found = scanSinks([{ name: form, text }], canaries);
      expect(
        found.map((hit) => hit.canary),
        `${form}: ${text}`,
      ).toContain(canary);
    }
    const placeholdersOnly =
      'Typed secret `password` into element 4; token <secret>apiToken</secret>; code [redacted] at 2026-12-06T17:45:12.345Z, 1796580123456 ms';
    expect(scanSinks([{ name: 'placeholders', text: placeholdersOnly }], canaries)).toEqual([]);
  });

  it('catches what is printed: the stdout/stderr capture sees console and stream writes', async () => {
    const { output } = await captureOutput(async () => {
      console.warn(`planted piece ${secretValues.accountKey.slice(2, 10)}`);
      process.stderr.write(`planted code ${secretValues.code.slice(1, 9)}\n`);
    });
    const found = scanSinks([{ name: 'captured output', text: output }], canaries);
    expect(found.map((hit) => hit.canary).sort()).toEqual(['accountKey', 'code']);
  });

  it('finds nothing on the pages filled with decoys, and a hit in every section when filled with the canaries', async () => {
    const template = await readFile(join(import.meta.dirname, '../fixtures/secrets-canary/account.html'), 'utf8');
    const decoyPage = fillTemplate(template, decoyValues);
    const decoyUrl = `/account/${decoyValues.accountKey}/overview?t=${percentEncodeAll(decoyValues.apiToken)}`;
    expect(scanSinks([{ name: 'decoy page', text: `${decoyUrl}\n${decoyPage}` }], canaries)).toEqual([]);
    const realPage = await site.render('account.html');
    const sections = [...realPage.matchAll(/<section id="([^"]+)">([\s\S]*?)<\/section>/g)];
    expect(sections.length).toBeGreaterThanOrEqual(10);
    for (const [, id, body] of sections) {
      if (id === 'boxes') {
        // One character per element: no piece is in the markup, the characters are there in order.
        const characters = [...(body as string).matchAll(/(?:value="|class="cell">)([^"<])/g)].map((match) => match[1]).join('');
        expect(characters).toBe(secretValues.code + secretValues.accountKey + secretValues.password);
      } else expect(scanSinks([{ name: id as string, text: body as string }], canaries).length, `section ${id}`).toBeGreaterThan(0);
    }
  });
});

describe('secrets canary: no piece of any canary in any sink', () => {
  it.each(sinkNames)('%s', (name) => {
    const sink = runs.flatMap((scenario) => scenario.sinks).find((candidate) => candidate.name === name);
    expect(sink, `sink ${name} was collected`).toBeDefined();
    const own = hits.filter((hit) => hit.sink === name);
    expect(own.length, `\n${formatHitTable([name], own, 40)}\n`).toBe(0);
  });

  it('the sinks that must hold the run are not empty (a sink that captured nothing proves nothing)', () => {
    const empty = runs
      .flatMap((scenario) => scenario.sinks)
      .filter((sink) => !/error chain|stdout\/stderr/.test(sink.name) && sink.text.trim().length < 200)
      .map((sink) => sink.name);
    expect(empty).toEqual([]);
  });
});
