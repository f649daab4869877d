// The checks of the driver conformance kit on acting on elements of a snapshot, through
// `resolveDriver` (the driver's own element methods, or the core's defaults where it has none):
// click, a covered click, fill, selectOption, press, scroll, and refs that no longer hold.

import type { ElementRef } from '../browser/types';
import { BrowserError } from '../errors';
import { describeValue } from './conformance';
import { isRetryableBrowserError, type DriverCaseContext, type DriverCheck } from './driver-conformance-harness';
import {
  controlValuesScript,
  coverPageScript,
  focusScript,
  pageRecordScript,
  removeElementsScript,
  scrollPositionsScript,
  type PageRecord,
} from './driver-conformance-probes';

const clickContract = "click(ref) clicks the element of the last snapshot once, so the page's click handler runs, then settles";
const staleContract =
  'an element method given a ref whose element is gone (removed, or of a document since replaced) rejects with a retryable BrowserError saying the element is no longer on the page';
const staleFix =
  "find the element with the runtime's lookup (elementLookupExpression, or the core's defaults by leaving the method out) and throw new BrowserError(`Element ${ref.index} is no longer on the page: …`, { retryable: true }) when it answers 'removed' or 'document'";
const stalePattern = /no longer|gone|removed|detached|stale/i;

async function pageRecord(context: DriverCaseContext): Promise<PageRecord> {
  const record = await context.probe(pageRecordScript, undefined);
  if (record) return record;
  throw context.fail({
    contract: 'evaluate() runs page scripts in the active tab',
    expected: "the fixture page's record of its own listeners",
    received: 'none: the script ran in another document',
    fix: 'evaluate in the active tab\u2019s current document',
  });
}

/** The snapshot's button, input and select of the controls page. */
async function controlRefs(context: DriverCaseContext): Promise<{ button: ElementRef; input: ElementRef; select: ElementRef }> {
  const state = await context.capture();
  return {
    button: context.elementOf(state, 'button', 'Save draft'),
    input: context.elementOf(state, 'input', 'Your name'),
    select: context.elementOf(state, 'select', 'Colour'),
  };
}

/** Every element method on refs that no longer hold must reject with a retryable BrowserError saying so. */
async function expectStale(context: DriverCaseContext, refs: { button: ElementRef; input: ElementRef; select: ElementRef }, why: string): Promise<void> {
  const { resolved } = context;
  const calls: [string, () => Promise<unknown>][] = [
    [`click() on a button that ${why}`, () => resolved.click(refs.button)],
    [`fill() on an input that ${why}`, () => resolved.fill(refs.input, 'stale')],
    [`selectOption() on a select that ${why}`, () => resolved.selectOption(refs.select, 'Blue')],
    [`scroll() in a button that ${why}`, () => resolved.scroll({ ref: refs.button, deltaY: 100 })],
  ];
  for (const [what, call] of calls) {
    const error = await context.expectRejection(what, call, { contract: staleContract, fix: staleFix });
    if (!isRetryableBrowserError(error) || !stalePattern.test((error as Error).message)) {
      throw context.fail({
        contract: staleContract,
        expected: `${what}: a BrowserError with retryable: true saying the element is no longer on the page`,
        received: describeValue(error),
        fix: staleFix,
        cause: error,
      });
    }
  }
}

export const elementChecks: DriverCheck[] = [
  {
    name: "elements › click runs a button's handler",
    run: async (context) => {
      await context.open('controls');
      const { button } = await controlRefs(context);
      const result = await context.expectValue('click() on a button', () => context.resolved.click(button), { contract: clickContract, ms: 15_000 });
      const record = await pageRecord(context);
      if (record.clicks !== 1) {
        throw context.fail({
          contract: clickContract,
          expected: 'the button\u2019s click handler to run once',
          received: `it ran ${record.clicks} times; click() returned ${describeValue(result)}`,
          fix: 'click the point the runtime\u2019s clickPoint gives (in top-page coordinates: add the frame offsets), or leave click out and implement mouseClick(x, y); never click and dispatch both',
        });
      }
    },
  },
  {
    name: 'elements › click on a covered button reports dom or what covered it',
    run: async (context) => {
      await context.open('controls');
      const state = await context.capture();
      const covered = context.elementOf(state, 'button', 'Covered button');
      await context.probe(coverPageScript, undefined);
      const contract =
        'click(ref) on an element covered by an overlay says so: it dispatches the click in the page (method `dom`, the handler runs) or names what covered it (`coveredBy`)';
      const result = await context.expectValue('click() on a covered button', () => context.resolved.click(covered), { contract, ms: 15_000 });
      const record = await pageRecord(context);
      const method = typeof result === 'object' && result !== null ? result.method : undefined;
      const coveredBy =
        typeof result === 'object' && result !== null && typeof result.coveredBy === 'string' && result.coveredBy !== '' ? result.coveredBy : undefined;
      if ((method !== 'dom' && !coveredBy) || (method === 'dom' && record.coveredClicks !== 1)) {
        throw context.fail({
          contract,
          expected: "a ClickResult { method: 'dom' } with the button's handler run once, or one that names the overlay in coveredBy",
          received: `${describeValue(result)}; the handler ran ${record.coveredClicks} times`,
          fix: "hit-test first (the runtime's clickPoint answers 'covered' and what covers it), then dispatch the click in the page and return { method: 'dom', coveredBy }",
        });
      }
    },
  },
  {
    name: "elements › fill sets an input's value, and the page sees the input event",
    run: async (context) => {
      await context.open('controls');
      const { input } = await controlRefs(context);
      const text = 'Ada Lovelace';
      const contract = 'fill(ref, text) replaces the value of an input and fires input events the page listens to, then settles';
      await context.expectValue('fill() on an input', () => context.resolved.fill(input, text), { contract, ms: 15_000 });
      const values = await context.probe(controlValuesScript, undefined);
      const record = await pageRecord(context);
      if (values.name !== text || record.inputs.at(-1) !== text) {
        throw context.fail({
          contract,
          expected: `the input's value "${text}", and its input listener seeing "${text}" last`,
          received: `value ${describeValue(values.name)}; the listener saw ${describeValue(record.inputs)}`,
          fix: "set the value through the input's own value setter and fire input and change (or type it with a real keyboard), or leave fill out for the core's default",
        });
      }
    },
  },
  {
    name: 'elements › selectOption selects by label and returns the values',
    run: async (context) => {
      await context.open('controls');
      const { select } = await controlRefs(context);
      const contract = 'selectOption(ref, label) selects the option with that label (or value) and returns the selected values';
      const values = await context.expectValue('selectOption(ref, "Blue")', () => context.resolved.selectOption(select, 'Blue'), { contract, ms: 15_000 });
      const now = await context.probe(controlValuesScript, undefined);
      if (JSON.stringify(values) !== JSON.stringify(['b']) || now.colour !== 'b') {
        throw context.fail({
          contract,
          expected: "['b'] returned, and the select's value b",
          received: `${describeValue(values)} returned; the select's value ${describeValue(now.colour)}`,
          fix: 'match the label among the options (then the value), select it, fire input and change, and return the values',
        });
      }
    },
  },
  {
    name: 'elements › selectOption with a missing label is a BrowserError listing the options',
    run: async (context) => {
      await context.open('controls');
      const { select } = await controlRefs(context);
      const contract = 'selectOption(ref, label) with a label no option has rejects with a BrowserError listing the options, so the model can choose one';
      const fix = 'throw new BrowserError(`Element ${ref.index} has no option "${label}". Options: ${labels.join(", ")}.`)';
      const error = await context.expectRejection('selectOption(ref, "Purple")', () => context.resolved.selectOption(select, 'Purple'), { contract, fix });
      const message = error instanceof Error ? error.message : '';
      if (!BrowserError.isInstance(error) || !['Red', 'Green', 'Blue'].every((label) => message.includes(label))) {
        throw context.fail({ contract, expected: 'a BrowserError whose message names Red, Green and Blue', received: describeValue(error), fix, cause: error });
      }
    },
  },
  {
    name: 'elements › press Enter in a form field submits the form',
    run: async (context) => {
      await context.open('controls');
      if (!(await context.probe(focusScript, 'query'))) {
        throw context.fail({
          contract: 'evaluate() runs page scripts in the active tab',
          expected: 'the search field focused by a page script',
          received: 'it did not take the focus',
          fix: 'evaluate in the active tab\u2019s current document',
        });
      }
      const contract = 'press(keys) presses keys on the focused element, with their default actions (Enter submits a form), then settles';
      await context.expectValue('press("Enter")', () => context.resolved.press('Enter'), { contract, ms: 15_000 });
      const record = await pageRecord(context);
      if (record.submits !== 1 || record.submitted !== 'plannav') {
        throw context.fail({
          contract,
          expected: 'the form submitted once, with the field\u2019s value "plannav"',
          received: `${record.submits} submits (value ${describeValue(record.submitted)})`,
          fix: "press the key with the browser's keyboard on the focused element (Playwright's page.keyboard.press), or leave press out for the core's default",
        });
      }
    },
  },
  {
    name: 'elements › scroll moves the page and an inner scroll box',
    run: async (context) => {
      await context.open('scroll');
      const box = context.elementOf(await context.capture(), 'div', 'Scroll box');
      const contract = 'scroll({ ref, deltaY }) scrolls inside the element, scroll({ deltaY }) scrolls the page, then settles';
      const fix = "scroll the element's scrollTop (or the window) by deltaY, or leave scroll out for the core's default";
      await context.expectValue('scroll({ ref: box, deltaY: 300 })', () => context.resolved.scroll({ ref: box, deltaY: 300 }), { contract, ms: 15_000 });
      const afterBox = await context.probe(scrollPositionsScript, undefined);
      await context.expectValue('scroll({ deltaY: 600 })', () => context.resolved.scroll({ deltaY: 600 }), { contract, ms: 15_000 });
      const afterPage = await context.probe(scrollPositionsScript, undefined);
      if ((afterBox.box ?? 0) < 200 || afterPage.page < 300) {
        throw context.fail({
          contract,
          expected: 'the box scrolled by about 300 px, then the page by about 600 px',
          received: `box at ${describeValue(afterBox.box)} after the box scroll; page at ${afterPage.page} after the page scroll`,
          fix,
        });
      }
    },
  },
  {
    name: 'elements › a removed element is a retryable BrowserError saying it is no longer on the page',
    run: async (context) => {
      await context.open('controls');
      const refs = await controlRefs(context);
      await context.probe(removeElementsScript, ['save', 'name', 'colour']);
      await expectStale(context, refs, 'was removed');
    },
  },
  {
    name: 'elements › an element of a replaced document is a retryable BrowserError saying it is no longer on the page',
    run: async (context) => {
      await context.open('controls');
      const refs = await controlRefs(context);
      // The same URL again: a new document, whose elements look the same.
      await context.open('controls');
      await expectStale(context, refs, 'belongs to a document since replaced');
    },
  },
];
