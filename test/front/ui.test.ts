// `plannav ui` in real headless Chromium: one session from start to finish, driven as a person drives it
// (by data-testid only), on the demo shop and its scripted model, slowed so that pause and stop land mid-run.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHistory } from '../../src/history/schema';
import type { RunHistory } from '../../src/history/types';
import {
  currentState,
  launchChromium,
  liveViewsSeen,
  recordStatuses,
  startRunPage,
  statesSeen,
  testId,
  watchLiveView,
  type RunPage,
  type RunState,
} from '../helpers/ui-run-page';

/** Each call of the demo's scripted model takes this long: a step takes at least two of them. */
const demoStepDelayMs = 250;

let runPage: RunPage | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let folder: string;
/** Every URL the page (and anything it started) requested. */
const requests: string[] = [];
/** The page's requests that are not a GET, with the headers they carried: the commands it sent. */
const commands: { url: string; method: string; headers: Record<string, string> }[] = [];
/** Responses the page got that carried a CORS header. */
const corsResponses: string[] = [];
/** Uncaught errors in the page and Content-Security-Policy violations it reported. */
const pageProblems: string[] = [];
/** The demo task, as the page offers it in demo mode. */
let demoTask = '';

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-ui-e2e-'));
  const [started, launched] = await Promise.allSettled([startRunPage({ demo: true, open: false, demoStepDelayMs }), launchChromium()]);
  if (started.status === 'fulfilled') runPage = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (started.status === 'rejected') throw started.reason;
  if (launched.status === 'rejected') throw launched.reason;
  context = await launched.value.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(15_000);
  await recordStatuses(context);
  context.on('request', (request) => {
    requests.push(request.url());
    if (request.method() !== 'GET') commands.push({ url: request.url(), method: request.method(), headers: request.headers() });
  });
  context.on('response', (response) => {
    if (Object.keys(response.headers()).some((name) => name.startsWith('access-control-'))) corsResponses.push(response.url());
  });
  page = await context.newPage();
  page.on('pageerror', (error) => pageProblems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) pageProblems.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await runPage?.close();
  await rm(folder, { recursive: true, force: true });
});

function started(): RunPage {
  if (!runPage) throw new Error('the run page did not start');
  return runPage;
}

const element = (id: string): Locator => page.locator(testId(id));
/**
 * The latest element with this data-testid: a page may keep one summary card, set of download links or
 * question per run, and the newest is the one that matters.
 */
const latest = (id: string): Locator => element(id).last();
const stepCards = (): Locator => element('step-card');

/** The texts of every element with this data-testid inside the step cards. */
const cardTexts = (id: string): Promise<string[]> => stepCards().locator(testId(id)).allInnerTexts();

/** The run states seen since `mark` (a count of states seen before). */
async function statesSince(mark: number): Promise<RunState[]> {
  return (await statesSeen(page)).slice(mark);
}

/** Types a task in the task box and submits it; returns the count of run states seen before. */
async function submitTask(task: string): Promise<number> {
  const mark = (await statesSeen(page)).length;
  await element('task-input').fill(task);
  await element('submit').click();
  return mark;
}

/** Clicks a download link, waits for the browser's download and saves it in the test's folder; returns its path. */
async function download(id: string, name: string): Promise<string> {
  const [saved] = await Promise.all([page.waitForEvent('download'), latest(id).click()]);
  const file = join(folder, name);
  await saved.saveAs(file);
  return file;
}

async function downloadHistory(name: string): Promise<{ file: string; history: RunHistory }> {
  const file = await download('download-history', name);
  return { file, history: parseHistory(JSON.parse(await readFile(file, 'utf8'))) };
}

/** What the page's own fetch gets at a download link's address: status, type and the first bytes. */
function fetchLink(id: string): Promise<{ status: number; type: string; head: string; size: number }> {
  return latest(id).evaluate(async (link) => {
    const href = link instanceof HTMLAnchorElement ? link.href : (link.querySelector('a')?.href ?? '');
    const response = await fetch(href);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      head: new TextDecoder().decode(bytes.slice(0, 200)),
      size: bytes.length,
    };
  });
}

describe('plannav ui in Chromium: one session, start to finish', () => {
  it('opens with its token and offers the task box, the settings and the demo task', async () => {
    const url = new URL(started().url);
    expect(url.origin).toBe(`http://127.0.0.1:${started().port}`);
    expect(url.searchParams.get('token')).toBe(started().token);

    const response = await page.goto(started().url);
    expect(response?.status()).toBe(200);
    await element('task-input').waitFor({ state: 'visible' });
    for (const id of ['submit', 'settings', 'model-input', 'headless-toggle', 'cdp-url-input', 'allowed-hosts-input', 'history-file-input']) {
      expect(await element(id).count(), id).toBeGreaterThan(0);
    }
    // In demo mode the task box offers the demo task (the shop's address is in it, which the test cannot know).
    const input = element('task-input');
    demoTask = (await input.inputValue()) || ((await input.getAttribute('placeholder')) ?? '');
    expect(demoTask).toMatch(/cheapest blue item under \$25/i);
    expect(demoTask).toMatch(/cart/i);
  });

  it('runs the demo task: step cards appear, each with a screenshot that loaded', { timeout: 60_000 }, async () => {
    const mark = await submitTask(demoTask);
    await watchLiveView(page);
    await expect.poll(() => statesSince(mark)).toContain('running');
    await expect
      .poll(
        () =>
          stepCards()
            .locator(testId('step-screenshot'))
            .evaluateAll((images) => images.filter((image) => image instanceof HTMLImageElement && image.complete && image.naturalWidth > 0).length),
        { timeout: 40_000 },
      )
      .toBeGreaterThan(0);
    expect(await currentState(page)).toBe('running');
  });

  it('pauses: no step runs while paused; resume continues the steps', { timeout: 60_000 }, async () => {
    await element('pause').click();
    await expect.poll(() => currentState(page)).toBe('paused');
    // The one fixed wait of the file, and why: this checks that nothing happens, which no event can
    // announce. The model call in flight when Pause was pressed may still answer (the executor lets it
    // finish, and its step's card may then show the answer): after that, no step may start. Unpaused,
    // the demo starts a step at least every 2 x demoStepDelayMs (its model calls, then its actions), so
    // six more delays would show new step cards if the pause did not hold.
    await page.waitForTimeout(2 * demoStepDelayMs);
    const cardsWhenPaused = await stepCards().count();
    await page.waitForTimeout(6 * demoStepDelayMs);
    expect(await stepCards().count()).toBe(cardsWhenPaused);
    expect(await currentState(page)).toBe('paused');

    const mark = (await statesSeen(page)).length;
    await element('resume').click();
    await expect.poll(() => statesSince(mark)).toContain('running');
    await expect.poll(() => stepCards().count(), { timeout: 40_000 }).toBeGreaterThan(cardsWhenPaused);

    // For the README (docs/images/run-page.png): the page mid-run, written only when asked for.
    const screenshotPath = process.env.PLANNAV_UI_SCREENSHOT;
    if (screenshotPath) await page.screenshot({ path: screenshotPath });
  });

  it('showed the live view of the headless page as it changed', { timeout: 60_000 }, async () => {
    // Watched from the moment the task was submitted: at least two different pictures.
    await expect.poll(() => liveViewsSeen(page), { timeout: 40_000 }).toBeGreaterThanOrEqual(2);
  });

  it('ends done, with the steps shown in their cards and a summary card', { timeout: 60_000 }, async () => {
    await expect.poll(() => currentState(page), { timeout: 50_000 }).toBe('done');
    expect(await statesSeen(page)).toEqual(['running', 'paused', 'running', 'done']);

    // The scripted shopper's own words: its plan, its goals, its last evaluation and the item it put in the cart.
    expect((await cardTexts('plan')).join('\n')).toMatch(/Kitchen|colour/i);
    expect((await cardTexts('next-goal')).join('\n')).toMatch(/Kitchen/);
    expect((await cardTexts('evaluation')).join('\n')).toMatch(/Success/);
    expect((await cardTexts('action')).join('\n')).toMatch(/Blue bowl/);

    const summary = await latest('summary-card').innerText();
    expect(summary).toMatch(/Blue bowl/);
    expect(summary).toMatch(/\btokens?\b/i);
    expect(summary).toMatch(/\d+(?:\.\d+)?\s?(?:ms|s|seconds?)\b|\d+:\d{2}/i);
  });

  it('downloads the history, the GIF and the report of the run', { timeout: 60_000 }, async () => {
    const { history } = await downloadHistory('history.json');
    expect(history.tasks).toHaveLength(1);
    expect(history.tasks[0]?.task).toBe(demoTask);
    expect(history.tasks[0]?.status).toBe('ok');
    expect(history.tasks[0]?.finalAnswer).toMatch(/Blue bowl/);
    expect(history.steps.length).toBeGreaterThan(0);

    const gif = await fetchLink('download-gif');
    expect(gif.status).toBe(200);
    expect(gif.head.startsWith('GIF89a')).toBe(true);
    expect(gif.size).toBeGreaterThan(1000); // frames of the run's screenshots, not an empty picture
    const report = await fetchLink('download-report');
    expect(report.status).toBe(200);
    expect(report.type).toMatch(/text\/html/);
    expect(report.head).toMatch(/<!doctype html|<html/i);
    expect(report.size).toBeGreaterThan(1000);
  });

  it('opens the saved history and replays it to the end', { timeout: 60_000 }, async () => {
    const mark = (await statesSeen(page)).length;
    await element('history-file-input').setInputFiles(join(folder, 'history.json'));
    await element('replay').click();
    await expect.poll(() => statesSince(mark), { timeout: 50_000 }).toEqual(['running', 'done']);
  });

  it('runs a follow-up task in the same session: the history holds both tasks', { timeout: 60_000 }, async () => {
    const followUp = `${demoTask} Then say what the cart holds.`;
    const mark = await submitTask(followUp);
    await expect.poll(() => statesSince(mark), { timeout: 50_000 }).toEqual(['running', 'done']);
    const { history } = await downloadHistory('follow-up.json');
    expect(history.tasks.map((task) => task.task)).toEqual([demoTask, followUp]);
    expect(history.tasks[1]?.status).toBe('ok');
  });

  it("asks the agent's question in the page, and the run goes on with the answer", { timeout: 60_000 }, async () => {
    const mark = await submitTask(`${demoTask} If anything is unclear, ask me.`);
    await latest('question').waitFor({ state: 'visible' });
    expect((await latest('question').innerText()).trim()).not.toBe('');
    expect(['done', 'failed', 'cancelled']).not.toContain(await currentState(page));

    await element('answer-input').fill('Any shade of blue will do (answer 7f3c)');
    await element('answer-submit').click();
    await expect.poll(() => statesSince(mark), { timeout: 50_000 }).toEqual(['running', 'done']);
    // The answer reached the agent: the ask_human action's result carries it.
    expect((await cardTexts('action')).join('\n')).toContain('answer 7f3c');
    expect(await latest('question').isVisible()).toBe(false);
  });

  it('stops a run midway: it ends cancelled', { timeout: 60_000 }, async () => {
    // Another colour than the cart holds: the shopper has several steps to go (to the section, filter, …).
    const otherTask = demoTask.replace(/\bblue\b/i, 'red');
    const mark = await submitTask(otherTask);
    await expect.poll(() => statesSince(mark)).toContain('running');
    await element('stop').click();
    await expect.poll(() => statesSince(mark), { timeout: 15_000 }).toEqual(['running', 'cancelled']);
  });

  it('loaded nothing from outside its own origin and broke no rule of its CSP', () => {
    const origin = `http://127.0.0.1:${started().port}`;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(?:data|blob):/.test(url))).toEqual([]);
    expect(pageProblems).toEqual([]);
    expect(corsResponses).toEqual([]);
  });

  it('sent the token with every command', () => {
    const token = started().token;
    // At least: four tasks submitted, a pause, a resume, a replay, an answer and a stop.
    expect(commands.length).toBeGreaterThanOrEqual(9);
    const carries = (command: (typeof commands)[number]): boolean =>
      command.headers['x-plannav-token'] === token ||
      command.headers.authorization === `Bearer ${token}` ||
      new URL(command.url).searchParams.get('token') === token;
    expect(commands.filter((command) => !carries(command)).map(({ method, url }) => `${method} ${url}`)).toEqual([]);
  });
});
