// Acceptance tests for the rules of the model's view of a page (which elements get an index, how
// they are named, how their text reads, when the page is read), in headless Chromium on view-*.html.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputTextAction } from '../../src/actions/builtin/input-text';
import { ActionRegistry } from '../../src/actions/registry';
import type { PageState } from '../../src/browser/page-state';
import { describePageChange, readBaseline } from '../../src/dom/page-changes';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { liveContext } from './action-helpers';
import { capture, elementLines, indexWith, lineWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  // A settle bound of one second rather than the harness's two: the slow pages of the
  // first-state rule then outlast goto's wait by far, and two settles of the ticker page (the
  // action's and the loop's) stay well under the four seconds the suggestion rule allows.
  fixture = await startBrowser({ settle: { maxWaitMs: 1000 } });
});

afterAll(async () => {
  await fixture?.close();
});

/** An element line's opening: indentation, new-element mark, index, tag and attributes (quoted values may hold `>`). */
const elementOpening = /^\t*\*?\[\d+\]<[a-z][\w-]*(?:\s[^\s=>]+(?:="(?:[^"\\]|\\.)*")?)*>/;
/** What closes an element's text: ` />`, and the scroll note of a scroll box. */
const elementClosing = / \/>(?: \(scrollable: [^)]*\))?$/;

/** The full line of the first element whose line matches `pattern` (a substring or a regex), or undefined. */
function elementLine(text: string, pattern: string | RegExp): string | undefined {
  return elementLines(text).find((line) => (typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line)));
}

/** The text on an element line, after its tag and before ` />`. */
function ownText(line: string): string {
  return line.replace(elementOpening, '').replace(elementClosing, '');
}

/** Leading tabs of a line. */
function depthOf(line: string): number {
  return /^\t*/.exec(line)![0].length;
}

/**
 * The lines of the first element whose line matches `pattern`: its own line and, when its text
 * goes on, the lines after it up to the one that ends with ` />`.
 */
function elementBlock(text: string, pattern: string | RegExp): string[] {
  const lines = text.split('\n');
  const first = elementLine(text, pattern);
  if (first === undefined) throw new Error(`no element line matches ${String(pattern)} in:\n${text}`);
  const start = lines.indexOf(first);
  let end = start;
  while (end < lines.length - 1 && !elementClosing.test(lines[end]!)) end++;
  return lines.slice(start, end + 1);
}

/** Every line of the state as it reads: indentation, element openings and ` />` taken off. */
function readableLines(text: string): string[] {
  return text.split('\n').map((line) => line.replace(elementOpening, '').replace(elementClosing, '').trim());
}

/** The element lines whose text is exactly `label`. */
function linesReading(text: string, label: string): string[] {
  return elementLines(text).filter((line) => ownText(line) === label);
}

/** Evaluates an expression in the active page. */
function inPage<T>(expression: string): Promise<T> {
  return fixture.driver.page.evaluate<T>(expression);
}

/** Every event of this name the executor emits, in order. */
function collect<K extends keyof ExecutorEventMap>(executor: Executor, name: K): ExecutorEventMap[K][] {
  const events: ExecutorEventMap[K][] = [];
  executor.on(name, (event) => events.push(event));
  return events;
}

/** The index on the first element line matching `pattern`, read from a state text the way a model reads it. */
function indexIn(stateText: string, pattern: RegExp): number {
  const line = elementLine(stateText, pattern);
  if (!line) throw new Error(`no element line matches ${pattern} in:\n${stateText}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

describe('rule 1: document roots are never elements', () => {
  /** What a page whose root listens to clicks must still show: its controls at depth 0, its text outside elements, each paragraph on a line of its own. */
  function expectPlainPage(
    text: string,
    page: { readonly headings: readonly string[]; readonly paragraphs: readonly string[]; readonly controls: readonly string[] },
  ): void {
    expect(text).not.toMatch(/^\t*\*?\[\d+\]<(body|html)\b/m);
    for (const words of [...page.headings, ...page.paragraphs]) {
      expect(elementLine(text, words), `an element line holds "${words}"`).toBeUndefined();
      expect(text).toContain(words);
    }
    for (const paragraph of page.paragraphs) expect(text.split('\n'), `"${paragraph}" is a text line of its own`).toContain(paragraph);
    for (const control of page.controls) {
      expect(lineWith(text, control), control).toMatch(/^\*?\[\d+\]</);
    }
  }

  it('does not index the body when it has a click listener (click tracking)', async () => {
    const { elementsText: text } = await capture(fixture, 'view-root-body.html');
    expectPlainPage(text, {
      headings: ['Ferry timetable changes from Monday', 'Daily briefing'],
      paragraphs: [
        'The harbour authority will run fewer crossings on weekday mornings.',
        'Evening sailings stay as they are until the end of the summer season.',
      ],
      controls: ['>News />', '>Sport />', '>Weather />', 'Share this article', 'Save for later', 'name="briefing-email"', 'Sign up'],
    });
  });

  it('does not index the html element when it has an onclick handler (closing menus on outside clicks)', async () => {
    const { elementsText: text } = await capture(fixture, 'view-root-html.html');
    expectPlainPage(text, {
      headings: ['Returning an item'],
      paragraphs: ['You can return most items within 30 days of delivery.', 'Refunds reach your card three to five working days after we receive the parcel.'],
      controls: ['>Help home />', '>Orders />', 'My account', 'name="order-number"', 'Start a return', '>Contact us />'],
    });
  });

  it('does not index a full-page wrapper that delegates clicks', async () => {
    const { elementsText: text } = await capture(fixture, 'view-root-wrapper.html');
    expect(elementLine(text, /app-shell|id="app"/)).toBeUndefined();
    expectPlainPage(text, {
      headings: ['Sprint 14'],
      paragraphs: ['Four tasks are still open and two are waiting for review.', 'The sprint ends on Friday at noon.'],
      controls: ['>Projects />', '>Reports />', 'Only my tasks', 'Complete sprint', 'name="task-title"', 'Add task'],
    });
  });
});

describe('rule 2: controls are named as assistive technology names them', () => {
  let text: string;

  beforeAll(async () => {
    text = (await capture(fixture, 'view-names.html')).elementsText;
  });

  it('names radios by the labels that wrap them, each its own', () => {
    const radios = elementLines(text).filter((line) => line.includes('name="shipping"'));
    expect(radios).toHaveLength(2);
    expect(ownText(radios[0]!), radios[0]).toContain('Standard delivery');
    expect(ownText(radios[1]!), radios[1]).toContain('Express delivery');
  });

  it.each([
    ['a checkbox inside its label', 'name="newsletter"', 'Subscribe to the newsletter'],
    ['a checkbox by a <label for> placed elsewhere on the page', 'name="terms"', 'I accept the terms of sale'],
    ['a text input by its <label for>', 'name="email"', 'Email address'],
    ['a select by its <label for>', 'name="country"', 'Country'],
    ['an input by aria-labelledby, in the order of its two ids', 'name="billing-zip"', 'Billing Postal code'],
    ['an input by its only aria-label', 'name="q"', 'Search products'],
    ['an icon button by its only title', 'name="dismiss"', 'Close'],
    ['an input by its only placeholder', 'name="coupon"', 'Gift card or discount code'],
    ['an image input by its alt', 'name="sign-in"', 'Sign in'],
  ])('names %s', (_control, needle, name) => {
    const line = elementLine(text, needle);
    expect(line, `no element line has ${needle}`).toBeDefined();
    expect(ownText(line!), line).toContain(name);
  });

  it('keeps one visible indexed element carrying the label of a styled checkbox whose input is transparent', () => {
    expect(elementLines(text).filter((line) => line.includes('Remember this device'))).toHaveLength(1);
  });
});

describe('rule 3: each clickable item of a list, menu or suggestion box has its own index', () => {
  let text: string;

  beforeAll(async () => {
    text = (await capture(fixture, 'view-lists.html')).elementsText;
  });

  /** One element line per item, holding its text and no other item's. */
  function expectOneLineEach(items: readonly string[]): void {
    for (const item of items) {
      const lines = elementLines(text).filter((line) => line.includes(item));
      expect(lines, `element lines with "${item}"`).toHaveLength(1);
      for (const other of items.filter((candidate) => candidate !== item)) expect(lines[0], `"${item}" shares its line with "${other}"`).not.toContain(other);
    }
  }

  it('indexes list items that get a pointer cursor from CSS inside a list that delegates clicks', () => {
    expectOneLineEach(['Enamel teapot', 'Cast iron skillet', 'Bamboo steamer']);
  });

  it('indexes the options of a listbox that listens to clicks', () => {
    expectOneLineEach(['Best match', 'Price: low to high', 'Newest arrivals']);
  });

  it('indexes every item of a roving-tabindex menu, those with tabindex="-1" too', () => {
    expectOneLineEach(['Rename item', 'Duplicate item', 'Move to wishlist', 'Delete item']);
  });

  it('indexes items with their own listeners inside a container that listens too', () => {
    expectOneLineEach(['Under $25', 'Dishwasher safe', 'Ships today']);
  });
});

describe('rule 4: suggestions that come after a pause are seen', () => {
  const registry = new ActionRegistry([inputTextAction]);

  /** Types into the field the way a Navigator step does, waits as the loop does, and reads the page again. */
  async function typeAndRead(page: string, field: string, typed: string): Promise<{ state: PageState; elapsedMs: number }> {
    const state = await capture(fixture, page);
    const started = Date.now();
    const result = await registry.run('input_text', { index: indexWith(state.elementsText, field), text: typed }, liveContext(fixture, { state }));
    expect(result.error).toBeUndefined();
    await fixture.driver.waitForSettled();
    const elapsedMs = Date.now() - started;
    return { state: await state.reader.capture({ screenshot: false }), elapsedMs };
  }

  it('indexes suggestions a plain input shows 300 ms after the last keystroke', async () => {
    const { state } = await typeAndRead('view-suggest.html', 'name="from"', 'Paris');
    for (const station of ['Paris Nord station', 'Paris Est station', 'Paris Lyon station']) {
      expect(linesReading(state.elementsText, station), `${station} in:\n${state.elementsText}`).toHaveLength(1);
    }
  });

  it('indexes suggestions a plain input shows 600 ms after the last keystroke', async () => {
    const { state } = await typeAndRead('view-suggest.html', 'name="to"', 'Lyon');
    for (const station of ['Paris Lyon station', 'Lyon Part-Dieu station']) {
      expect(linesReading(state.elementsText, station), `${station} in:\n${state.elementsText}`).toHaveLength(1);
    }
  });

  it('ends the wait within its bound on a page whose DOM changes every 50 ms forever, suggestions included', async () => {
    const { state, elapsedMs } = await typeAndRead('view-ticker.html', 'name="symbol"', 'acme');
    expect(elapsedMs).toBeLessThan(4000);
    expect(lineWith(state.elementsText, 'name="symbol"')).toContain('value="acme"');
    expect(linesReading(state.elementsText, 'Acme Corporation (ACME)')).toHaveLength(1);
  });
});

describe('rule 5: text keeps its shape', () => {
  it('writes the block children of a clickable item on lines of their own, indented under it', async () => {
    const { elementsText: text } = await capture(fixture, 'view-inbox.html');
    const block = elementBlock(text, 'Grace Hopper');
    const depth = depthOf(block[0]!);
    expect(block, block.join('\n')).toHaveLength(3);
    expect(ownText(block[0]!)).toBe('Grace Hopper');
    expect(block[1]).toBe(`${'\t'.repeat(depth + 1)}Compiler meeting moved to Thursday`);
    expect(block[2]).toBe(`${'\t'.repeat(depth + 1)}Can we meet in room 4 at ten instead of nine? />`);
  });

  it('breaks the text at <br>', async () => {
    const { elementsText: text } = await capture(fixture, 'view-inbox.html');
    const block = elementBlock(text, 'Ada Lovelace');
    const depth = depthOf(block[0]!);
    expect(block, block.join('\n')).toEqual([
      expect.stringMatching(/>Ada Lovelace$/),
      `${'\t'.repeat(depth + 1)}12 St James's Square`,
      `${'\t'.repeat(depth + 1)}London SW1Y 4JH />`,
    ]);
  });

  it('cuts a line longer than the text limit with \u2026 and still shows the lines after it in full', async () => {
    const { elementsText: text } = await capture(fixture, 'view-inbox.html');
    const block = elementBlock(text, 'Charles Babbage');
    expect(block, block.join('\n')).toHaveLength(3);
    expect(ownText(block[0]!)).toBe('Charles Babbage');
    const subject = block[1]!.trim();
    expect(subject).toMatch(/^Difference engine: the full list of parts.*\u2026$/);
    expect(subject.length).toBeLessThanOrEqual(101);
    expect(block[2]!.trim()).toBe('Brass gears, two columns, a crank />');
  });

  it('keeps every line of a clickable terminal view readable', async () => {
    const { elementsText: text } = await capture(fixture, 'view-terminal.html');
    const rows = await inPage<string[]>(`[...document.querySelectorAll('.terminal .row')].map((row) => row.textContent.replace(/\\s+/g, ' ').trim())`);
    expect(rows).toHaveLength(40);
    const readable = readableLines(text).map((line) => line.replace(/\s+/g, ' '));
    const missing = rows.filter((row) => !readable.includes(row));
    expect(missing, `lines missing from:\n${text}`).toEqual([]);
  });
});

describe('rule 6: the page-change check follows the snapshot\u2019s rules', () => {
  /** Clicks the element labelled `label` in `state`, then asks the probe what changed since `state` was read. */
  async function changeAfterClicking(state: PageState, before: Awaited<ReturnType<typeof readBaseline>>, label: string): Promise<string | undefined> {
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, label))!);
    const frames = [...new Set([...state.elements.values()].map((element) => element.frameId))];
    return (await describePageChange(fixture.driver, before, frames, {})).change;
  }

  it('does not count buttons clipped by a scroll box as new, and counts a new visible button', async () => {
    const state = await capture(fixture, 'view-scroll-box.html');
    const before = await readBaseline(fixture.driver, {});
    expect(await changeAfterClicking(state, before, 'Play Blue in Green')).toBeUndefined();
    expect(await changeAfterClicking(state, before, 'Shuffle')).toBe('1 new element(s) appeared');
  });

  it('does not count buttons covered by a fixed overlay as new, one that appears behind it included, and counts a new button on the overlay', async () => {
    const state = await capture(fixture, 'view-cookie-wall.html');
    const before = await readBaseline(fixture.driver, {});
    // Ticking the box adds a button behind the overlay: nothing the model could click.
    expect(await changeAfterClicking(state, before, 'name="analytics"')).toBeUndefined();
    expect(await inPage<boolean>(`[...document.querySelectorAll('button')].some((button) => button.textContent === 'See offers near you')`)).toBe(true);
    expect(await changeAfterClicking(state, before, 'Manage choices')).toBe('1 new element(s) appeared');
  });

  it('runs both actions of a Navigator step beside a scroll box when the first changes nothing', async () => {
    await fixture.driver.goto(fixture.server.url('view-scroll-box.html'));
    let navigatorCalls = 0;
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') {
          const playing = /Now playing: [^\n]+/.exec(request.lastUserText);
          return navigatorCalls > 0 ? scriptedPlan({ done: true, finalAnswer: playing?.[0] ?? 'nothing' }) : scriptedPlan({ nextSteps: 'Play two songs' });
        }
        navigatorCalls++;
        if (navigatorCalls > 1) return scriptedActions([{ done: { text: 'played', success: true } }]);
        return scriptedActions([
          { click_element: { index: indexIn(request.lastUserText, /Play Blue in Green/) } },
          { click_element: { index: indexIn(request.lastUserText, /Play So What/) } },
        ]);
      },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Play Blue in Green, then So What',
      llm,
      browser: fixture.driver,
      planningInterval: 1,
      maxSteps: 3,
    });
    const ends = collect(executor, 'action-end');
    const result = await executor.execute();
    expect(ends.map((event) => [event.action, event.error])).toEqual([
      ['click_element', undefined],
      ['click_element', undefined],
    ]);
    expect(result.finalAnswer).toBe('Now playing: So What');
  });
});

describe('rule 7: the first state of a task is read after the page has settled', () => {
  /** Loads `page`, starts a task at once, and returns the state text of the Navigator's first request. */
  async function firstNavigatorState(page: string): Promise<string> {
    await fixture.driver.goto(fixture.server.url(page));
    let navigatorCalls = 0;
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner')
          return navigatorCalls > 0 ? scriptedPlan({ done: true, finalAnswer: 'looked' }) : scriptedPlan({ nextSteps: 'Look at the page' });
        navigatorCalls++;
        return scriptedActions([{ done: { text: 'looked', success: true } }]);
      },
    });
    await new Executor({ sensitiveActions: false, task: 'Start a free trial', llm, browser: fixture.driver, planningInterval: 1, maxSteps: 2 }).execute();
    const first = llm.requests.find((request) => request.agent === 'navigator');
    expect(first).toBeDefined();
    return first!.lastUserText;
  }

  it('shows controls a script adds right after load, when a slow image holds the load back past goto', async () => {
    expect(await firstNavigatorState('view-late-image.html')).toMatch(/\[\d+\]<button>Start free trial \/>/);
  });

  it('shows controls that wait for a slow answer from the server', async () => {
    expect(await firstNavigatorState('view-late-request.html')).toMatch(/\[\d+\]<button>Start free trial \/>/);
  });
});

describe('rule 8: hints never mislead', () => {
  it('does not hint a scroll box by the classes of its children', async () => {
    const { elementsText: text } = await capture(fixture, 'view-carousel.html');
    const track = elementLine(text, 'scrollable:');
    expect(track).toBeDefined();
    expect(/hint="([^"]*)"/.exec(track!)?.[1] ?? '', track).not.toMatch(/product|price|badge/);
    // The product link is listed on its own; its text names it, so its href is left out.
    expect(elementLine(text, 'Blue ceramic mug')).toMatch(/^\t*\*?\[\d+\]<a>Blue ceramic mug/);
  });

  it('gives each day of a calendar one index, its link, not its listening cell as well', async () => {
    const { elementsText: text } = await capture(fixture, 'view-calendar.html');
    expect(elementLine(text, /^\t*\*?\[\d+\]<td\b/)).toBeUndefined();
    for (let day = 1; day <= 31; day++) {
      const date = `2025-03-${String(day).padStart(2, '0')}`;
      expect(
        elementLines(text).filter((line) => line.includes(date)),
        date,
      ).toEqual([expect.stringMatching(new RegExp(`<a href="[^"]*date=${date}">${day} />$`))]);
    }
    expect(elementLines(text)).toHaveLength(31);
  });

  it('does not index a div whose click listener was removed, and indexes the one that keeps its listener', async () => {
    const { elementsText: text } = await capture(fixture, 'view-removed-listener.html');
    expect(lineWith(text, 'Apply coupon')).toBeUndefined();
    expect(text).toContain('Apply coupon');
    expect(lineWith(text, 'Continue to payment')).toMatch(/^\*?\[\d+\]<div[^>]*>Continue to payment \/>$/);
  });
});

describe('rule 9: what shows is in the view, as it reads (issue 21)', () => {
  it('keeps a positioned menu hanging from a row scrolled out of its scroll box', async () => {
    const { elementsText: text } = await capture(fixture, 'view-menu-text.html');
    // The row's own text is scrolled away; the menu below it shows inside the box.
    expect(readableLines(text)).not.toContain('Order 17 (Mira)');
    for (const label of ['Reorder', 'Refund', 'Archive']) expect(linesReading(text, label), label).toHaveLength(1);
    expect(readableLines(text)).toContain('Order 18 (Jonas)');
  });

  it('reads the alt of an image that is not a control as text, and nothing for an empty or hidden one', async () => {
    const lines = readableLines((await capture(fixture, 'view-menu-text.html')).elementsText);
    expect(lines).toContain('Garlic bread vegan');
    expect(lines).toContain('Tomato soup');
    expect(lines).toContain('Lamb stew');
  });

  it('joins inline text without invented spaces, keeps block and cell boundaries, and pads no element text', async () => {
    const { elementsText: text } = await capture(fixture, 'view-menu-text.html');
    const lines = readableLines(text);
    expect(lines).toContain('Lorem ipsum Gravida. dolor sit amet, consectetur.');
    expect(ownText(elementLine(text, 'Gravida.')!)).toBe('Gravida.');
    expect(lines).toEqual(expect.arrayContaining(['Click on', 'to continue.', 'Lunch', 'Dinner', 'Soup 4.50', 'Hot New']));
  });
});
