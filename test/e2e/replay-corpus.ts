// The replay corpus (issue 21): a shop run and a form run, recorded once by the real Executor with a
// scripted model on the original pages, replayed without a model on every variant of
// test/fixtures/replay-corpus, with the default options and with `onStepFailure: 'skip'`. The
// judge is what the server received, never what the replay says: 0 wrong actions (a wrong product
// in the cart, a wrong value sent, anything sent where no right outcome exists), and every variant
// ends right (the server got the recorded intent and the replay says `ok`) or failed with a reason.
// One suite per site (describeReplayCorpus), each in its own test file with its own browser and site
// (replay-corpus-shop.test.ts, replay-corpus-form.test.ts), so that the two run side by side.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, PlannavError, type ReplayOptions, type ReplayResult, type RunHistory } from '../../src/index';
import { replayHistory } from '../../src/replay/replay';
import { loadHistory, saveHistory } from '../../src/node/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { startCorpusSite, type CorpusSite, type Received, type Registration } from '../fixtures/replay-corpus/site';
import { FORM_VARIANTS, SHOP_VARIANTS, VARIANTS, type Variant } from '../fixtures/replay-corpus/variants';
import { pageChromium } from '../helpers/page-chromium';

const CUSTOMER = { name: 'Ada Lovelace', email: 'ada@example.com' };
const REGISTRATION: Registration = {
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  company: '',
  country: 'DE',
  session: 'afternoon',
  newsletter: false,
  terms: true,
};
/** Bounds one replay, so a replay that waits forever shows as `timed-out` (a failure with a reason) instead of hanging the file. */
const REPLAY_TIMEOUT_MS = 20_000;

// ---------------------------------------------------------------- the scripted model of the recording

interface ElementLine {
  readonly index: number;
  readonly tag: string;
  readonly attributes: string;
  readonly text: string;
}

/** The current tab's URL and the indexed elements of a state text. */
function readState(state: string): { url: string; elements: ElementLine[] } {
  const tab = JSON.parse(/^Current tab: (.+)$/m.exec(state)?.[1] ?? '{}') as { url?: string };
  const elements: ElementLine[] = [];
  for (const line of state.split('\n').map((text) => text.trim())) {
    const match = /^\*?\[(\d+)\]<(\w+)((?: [\w-]+(?:="(?:[^"\\]|\\.)*")?)*)>(.*) \/>$/.exec(line);
    if (match) elements.push({ index: Number(match[1]), tag: match[2] ?? '', attributes: match[3] ?? '', text: (match[4] ?? '').trim() });
  }
  return { url: tab.url ?? '', elements };
}

function allUserText(request: ScriptedRequest): string {
  return request.messages
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    )
    .join('\n');
}

/**
 * A scripted model that does one of the two tasks by reading the page it is sent: `pick` chooses
 * the Navigator's actions from the page's path and elements; `answer` reads the final answer from
 * the page once it shows it.
 */
function scriptedModel(
  origin: string,
  start: string,
  pick: (path: string, find: (tag: string, text: string) => number) => Record<string, unknown>[],
  answer: RegExp,
): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request) => {
      if (request.agent === 'planner') {
        const found = answer.exec(allUserText(request))?.[0];
        return scriptedPlan({ done: found !== undefined, nextSteps: found ? '' : 'Go on with the task', finalAnswer: found ?? '' });
      }
      const { url, elements } = readState(request.lastUserText);
      const find = (tag: string, text: string): number => {
        const element = elements.find((e) => e.tag === tag && e.text === text);
        if (!element) throw new Error(`The scripted model sees no <${tag}> "${text}" on ${url}`);
        return element.index;
      };
      const found = answer.exec(request.lastUserText)?.[0];
      if (found) return scriptedActions([{ done: { text: found, success: true } }]);
      if (!url.startsWith(origin)) return scriptedActions([{ go_to_url: { url: `${origin}${start}` } }]);
      return scriptedActions(pick(new URL(url).pathname, find));
    },
  });
}

const shopModel = (origin: string): ScriptedLLM =>
  scriptedModel(
    origin,
    '/shop',
    (path, find) => {
      if (path === '/shop') return [{ click_element: { index: find('a', 'Blue teapot') } }];
      if (path === '/product/blue-teapot') return [{ click_element: { index: find('button', 'Add to cart') } }];
      if (path === '/cart') return [{ click_element: { index: find('a', 'Checkout') } }];
      if (path === '/checkout') {
        return [
          { input_text: { index: find('input', 'Full name'), text: CUSTOMER.name } },
          { input_text: { index: find('input', 'Email'), text: CUSTOMER.email } },
          { click_element: { index: find('button', 'Place order') } },
        ];
      }
      throw new Error(`The scripted shopper is lost at ${path}`);
    },
    /Order confirmed: [^\n]*Total: \$\d+\.\d\d/,
  );

const formModel = (origin: string): ScriptedLLM =>
  scriptedModel(
    origin,
    '/form',
    (path, find) => {
      if (path !== '/form') throw new Error(`The scripted registrant is lost at ${path}`);
      return [
        { input_text: { index: find('input', 'Full name'), text: REGISTRATION.fullName } },
        { input_text: { index: find('input', 'Email'), text: REGISTRATION.email } },
        { select_dropdown_option: { index: find('select', 'Country'), text: 'Germany' } },
        { click_element: { index: find('input', 'Afternoon') } },
        { click_element: { index: find('input', 'I agree to the terms') } },
        { click_element: { index: find('button', 'Register') } },
      ];
    },
    /Registration confirmed: [^\n]*Germany/,
  );

// ---------------------------------------------------------------- judging by what the server received

type Verdict = 'right' | 'wrong' | 'missing';

const sameRegistration = (a: Registration, b: Registration): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Product pages other than the recorded one that the browser opened: a click on another product's link. */
const otherProductPages = (received: Received): string[] =>
  received.requests.map((request) => /^GET \w+ .*\/product\/([\w-]+)$/.exec(request)?.[1] ?? 'blue-teapot').filter((id) => id !== 'blue-teapot');

/** What the server received, in a few words. */
function describeEffect(variant: Variant, received: Received): string {
  if (variant.site === 'shop') {
    const orders = received.orders.map((o) => `order[${o.items.join('+')}; ${o.name}; ${o.email}]`);
    const opened = otherProductPages(received).map((id) => `opened[${id}]`);
    return [...opened, `cart[${received.cartAdds.join(',')}]`, ...orders].join(' ');
  }
  const registrations = received.registrations.map((r) =>
    r.fullName === REGISTRATION.fullName && sameRegistration(r, REGISTRATION) ? 'registration[as recorded]' : `registration${JSON.stringify(r)}`,
  );
  const others = received.otherSubmissions.map((s) => `${s.form}${JSON.stringify(s.fields)}`);
  return [...registrations, ...others].join(' ') || 'nothing sent';
}

/** Judges the server's record: the recorded intent exactly (`right`), nothing or part of it (`missing`), or anything else (`wrong`). */
function judge(variant: Variant, received: Received, intent: Registration = REGISTRATION): Verdict {
  if (variant.site === 'shop') {
    const wrong =
      otherProductPages(received).length > 0 ||
      received.cartAdds.some((id) => id !== 'blue-teapot') ||
      received.cartAdds.length > 1 ||
      received.orders.length > 1 ||
      received.orders.some((o) => o.items.join() !== 'blue-teapot' || o.name !== CUSTOMER.name || o.email !== CUSTOMER.email);
    if (wrong) return 'wrong';
    if (variant.expect === 'must-fail') return received.cartAdds.length || received.orders.length ? 'wrong' : 'missing';
    return received.orders.length === 1 ? 'right' : 'missing';
  }
  if (received.otherSubmissions.length > 0 || received.registrations.length > 1) return 'wrong';
  if (received.registrations.some((r) => !sameRegistration(r, intent))) return 'wrong';
  if (variant.expect === 'must-fail') return received.registrations.length ? 'wrong' : 'missing';
  return received.registrations.length === 1 ? 'right' : 'missing';
}

/** Why a replay did not end `ok`, as it says it: the first failed step's reason, else its error. */
function reasonOf(result: ReplayResult): string {
  const failed = result.steps.find((step) => step.status === 'failed');
  return (failed?.reason ?? result.error?.message ?? '').replace(/\s+/g, ' ').trim();
}

interface Row {
  readonly variant: string;
  readonly policy: 'stop' | 'skip';
  readonly expected: Variant['expect'];
  readonly verdict: Verdict;
  readonly effect: string;
  readonly status: ReplayResult['status'];
  readonly reason: string;
  /** The steps' statuses, such as `exact exact healed failed skipped`. */
  readonly steps: string;
  readonly ms: number;
}

/** A row breaks the corpus's rules when the server got something wrong, or when the replay does not say plainly that it did not get it right. */
const wrongAction = (row: Row): boolean => row.verdict === 'wrong';
const unaccounted = (row: Row): boolean => !(row.verdict === 'right' && row.status === 'ok') && !(row.status !== 'ok' && row.reason !== '');

// ---------------------------------------------------------------- the runs

/** The corpus of one site: its run recorded once, then replayed on each of its variants, and the precise cases of issue 21 on it. */
export function describeReplayCorpus(siteName: Variant['site']): void {
  const variants = siteName === 'shop' ? SHOP_VARIANTS : FORM_VARIANTS;
  let site: CorpusSite;
  let browser: PlaywrightDriver;
  let folder: string;
  let history: RunHistory;
  let shopAnswer: string | undefined;
  const rows: Row[] = [];

  /** The baseURL a variant's site is now at, when it moved. */
  function baseURLOf(variant: Variant): string | undefined {
    const spec = variant.site === 'shop' ? variant.shop : variant.form;
    if (spec.port !== 'second' && spec.base === undefined) return undefined;
    return `${spec.port === 'second' ? site.secondOrigin : site.origin}${spec.base ?? ''}/`;
  }

  /** Replays the variant's recorded run on it, in the shared browser, from a blank page. */
  async function replayOn(variant: Variant, options: Omit<ReplayOptions, 'browser'> = {}): Promise<{ result: ReplayResult; received: Received }> {
    site.use(variant);
    await browser.goto('about:blank');
    const baseURL = baseURLOf(variant);
    const result = await replayHistory(history, { browser, timeout: REPLAY_TIMEOUT_MS, ...(baseURL ? { baseURL } : {}), ...options });
    return { result, received: site.received };
  }

  /** Records one run on the original page with the real Executor, saves it and reads it back as a user would. */
  async function record(variant: Variant, task: string, llm: ScriptedLLM, file: string): Promise<{ history: RunHistory; finalAnswer: string | undefined }> {
    site.use(variant);
    await browser.goto('about:blank');
    // The recording is the fixture, not what is judged: its scripted model answers no trust-boundary confirmation.
    const result = await new Executor({ task, llm, browser, maxSteps: 10, sensitiveActions: false }).execute();
    expect(result.status, result.error?.message).toBe('ok');
    expect(judge(variant, site.received)).toBe('right');
    await saveHistory(join(folder, file), result.history);
    return { history: await loadHistory(join(folder, file)), finalAnswer: result.finalAnswer };
  }

  const variantNamed = (name: string): Variant => {
    const variant = VARIANTS.find((v) => v.name === name);
    if (!variant) throw new Error(`No variant ${name}`);
    return variant;
  };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'plannav-replay-corpus-'));
    site = await startCorpusSite(variantNamed(`${siteName}/original`));
    // Shorter quiet windows than the defaults (200 ms each), so ~60 replays fit the file's time; the replay options stay the defaults.
    browser = await PlaywrightDriver.launch({ headless: true, executablePath: pageChromium(), settle: { networkQuietMs: 50, domQuietMs: 50 } });
    if (siteName === 'shop') {
      const shop = await record(
        variantNamed('shop/original'),
        `Add the Blue teapot to the cart at ${site.origin}/shop and check out as ${CUSTOMER.name}, ${CUSTOMER.email}.`,
        shopModel(site.origin),
        'shop.json',
      );
      history = shop.history;
      shopAnswer = shop.finalAnswer;
    } else {
      const form = await record(
        variantNamed('form/original'),
        `Register ${REGISTRATION.fullName} for the afternoon workshop at ${site.origin}/form.`,
        formModel(site.origin),
        'form.json',
      );
      history = form.history;
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  describe(`replay corpus: the recorded ${siteName} run on its variants, judged by the server`, () => {
    it(`has at least 12 variants of the ${siteName}, each with its ground truth`, () => {
      expect(variants.length).toBeGreaterThanOrEqual(12);
      expect(variants.every((v) => v.site === siteName)).toBe(true);
      expect(variants.filter((v) => v.expect === 'must-fail').length).toBeGreaterThan(0);
      expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
      expect(variants.every((v) => v.reason.length > 0)).toBe(true);
    });

    it('replays every variant with the default options and with `skip`', { timeout: 300_000 }, async () => {
      for (const variant of variants) {
        for (const policy of ['stop', 'skip'] as const) {
          // `skip` differs from the default only once a step fails: when none failed, it is not run again.
          if (policy === 'skip' && !rows.at(-1)?.steps.includes('failed')) continue;
          const started = Date.now();
          // After a failed step the replay is off the recorded path, so with `skip` each later step waits its whole
          // element timeout for an element that is not there: a second (not the default 5) is enough to see each fail.
          const { result, received } = await replayOn(variant, policy === 'skip' ? { onStepFailure: 'skip', elementTimeoutMs: 1000 } : {});
          rows.push({
            ms: Date.now() - started,
            variant: variant.name,
            policy,
            expected: variant.expect,
            verdict: judge(variant, received),
            effect: describeEffect(variant, received),
            status: result.status,
            reason: result.status === 'ok' ? '' : reasonOf(result),
            steps: result.steps.map((step) => step.status).join(' '),
          });
        }
      }
      const cell = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));
      const lines = rows.map((row) =>
        [
          cell(row.variant, 30),
          cell(row.policy, 5),
          cell(row.expected, 9),
          cell(row.verdict, 7),
          cell(row.effect, 60),
          cell(row.status, 9),
          cell(row.steps, 50),
          `${(row.ms / 1000).toFixed(1)} s`.padStart(6),
          row.reason.slice(0, 160),
        ].join(' | '),
      );
      const count = (test: (row: Row) => boolean): number => rows.filter(test).length;
      console.log(
        [
          ['variant', 'policy', 'expected', 'server', 'server effect', 'status', 'steps', 'time', 'reason'].join(' | '),
          ...lines,
          `replays ${rows.length} (${variants.length} variants with the default options, ${rows.length - variants.length} again with skip where a step failed): right+ok ${count((r) => r.verdict === 'right' && r.status === 'ok')}, ` +
            `failed with a reason ${count((r) => r.status !== 'ok' && r.reason !== '' && r.verdict !== 'wrong')}, ` +
            `WRONG server effect ${count(wrongAction)} (${count((r) => wrongAction(r) && r.status === 'ok')} of them with status ok), ` +
            `ok without the right effect ${count((r) => r.status === 'ok' && r.verdict !== 'right')}, unaccounted ${count(unaccounted)}`,
        ].join('\n'),
      );
      expect(rows.filter((row) => row.policy === 'stop')).toHaveLength(variants.length);
    });

    it('(a) never sends a wrong product, a wrong value, or anything on a must-fail variant', () => {
      expect(rows.filter((row) => row.policy === 'stop')).toHaveLength(variants.length);
      expect(rows.filter(wrongAction).map((row) => `${row.variant} (${row.policy}): ${row.effect} [${row.status}]`)).toEqual([]);
    });

    it('(b) ends every variant right with status ok, or not ok with a reason', () => {
      expect(rows.filter((row) => row.policy === 'stop')).toHaveLength(variants.length);
      expect(rows.filter(unaccounted).map((row) => `${row.variant} (${row.policy}): ${row.verdict}, status ${row.status}, reason "${row.reason}"`)).toEqual([]);
    });
  });

  describe(`replay corpus: precise cases from issue 21 on the ${siteName}`, () => {
    // Each file defines the cases of its own site.
    if (siteName === 'form') {
      it('applies a `variables` value to a <select> field', { timeout: 60_000 }, async () => {
        const variant = variantNamed('form/original');
        const { result, received } = await replayOn(variant, { variables: { email: 'b@example.com', country: 'France' } });
        // The email variable (a text field) is the positive control; the country is the <select>.
        expect(received.registrations).toEqual([{ ...REGISTRATION, email: 'b@example.com', country: 'FR' }]);
        expect(result.status).toBe('ok');
      });

      it('rejects an unknown `variables` key with a typed error naming it, before anything is sent', { timeout: 60_000 }, async () => {
        const variant = variantNamed('form/original');
        let error: unknown;
        try {
          const { result } = await replayOn(variant, { variables: { faxNumber: '+44 20 7946 0000' } });
          error = result.status === 'ok' ? undefined : result.error;
        } catch (thrown) {
          error = thrown;
        }
        expect(PlannavError.isInstance(error), `not a PlannavError: ${String(error)}`).toBe(true);
        expect((error as Error).message).toContain('faxNumber');
        expect(site.received.registrations).toEqual([]);
      });

      it('keeps the path of a `baseURL`', { timeout: 60_000 }, async () => {
        const variant = variantNamed('form/path-prefix');
        const { received } = await replayOn(variant);
        const pages = received.requests.filter((request) => !request.endsWith('/favicon.ico'));
        expect(pages.length).toBeGreaterThan(0);
        expect(pages.filter((request) => !request.includes(' main /events/2027/'))).toEqual([]);
        expect(received.registrations).toEqual([REGISTRATION]);
      });
    }
    if (siteName === 'shop') {
      it('does not pass off the recorded final answer as the page\u2019s current one', { timeout: 60_000 }, async () => {
        // The recorded run read its answer from the confirmation page: the total was $24.00.
        expect(shopAnswer).toContain('Total: $24.00');
        const variant = variantNamed('shop/price-changed');
        const { result, received } = await replayOn(variant);
        // The replay did the whole run (the page now says $27.00)…
        expect(received.orders).toEqual([{ items: ['blue-teapot'], name: CUSTOMER.name, email: CUSTOMER.email }]);
        // …so its final answer is the one read again ($27.00), or the recorded one marked as recorded
        // (in its text or in a field of the result that the README does not list today).
        const answer = result.finalAnswer ?? '';
        if (answer.includes('$24.00')) {
          const known = new Set(['status', 'steps', 'finalAnswer', 'usage', 'error', 'durationMs', 'history']);
          const marker = Object.entries(result as unknown as Record<string, unknown>).find(
            ([key, value]) => !known.has(key) && /recorded|stale|source|fresh|current/i.test(key) && value !== undefined && value !== false,
          );
          expect(/recorded/i.test(answer) || marker !== undefined, `finalAnswer "${answer}" is the recorded one, unmarked`).toBe(true);
        } else if (answer !== '') {
          expect(answer).toContain('$27.00');
        }
      });
    }
  });
}
