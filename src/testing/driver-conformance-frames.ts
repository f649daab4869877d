// The checks of the driver conformance kit on frames, evaluate and the snapshot the core takes
// through them: frame order, parents, offsets and ids, page scripts with JSON in and out, and the
// elements of a page and of a cross-origin iframe as the model reads them.

import type { FrameInfo } from '../browser/types';
import { describeValue } from './conformance';
import { isRetryableBrowserError, type DriverCaseContext, type DriverCheck } from './driver-conformance-harness';
import { delayedScript, echoScript, iframeBoxesScript, locationScript, removeElementsScript, type EchoArgument } from './driver-conformance-probes';

const framesContract =
  'frames() lists the frames of the active tab, top frame first; each child frame carries its parent id and the offset of its content box in the parent';
const evaluateContract =
  "evaluate() runs `(${script.source})(argument)` in the frame's document, awaits the value and returns it JSON-serialised and parsed back";
const evaluateFix = "evaluate pageScriptExpression(script, argument) in the frame's document and return readPageScriptResult(value, script.id)";
const frameLoadMs = 5000;
/** Offsets are CSS pixels; layout rounding allows a little slack, a border's width does not. */
const offsetSlack = 1.5;

/** The child frames of the fixture's frames page, by the URL the driver must report. */
function childUrls(context: DriverCaseContext): { same: string; cross: string; hidden: string } {
  return {
    same: context.site.url('child', 'name=same'),
    cross: context.site.url('child', 'name=cross', 'other'),
    hidden: context.site.url('child', 'name=hidden'),
  };
}

/** Opens the frames page and waits (bounded) until frames() lists its two visible child frames. */
async function openFramesPage(context: DriverCaseContext): Promise<{ url: string; frames: FrameInfo[]; same: FrameInfo; cross: FrameInfo }> {
  const url = await context.open('frames');
  const wanted = childUrls(context);
  let last: FrameInfo[] = [];
  const found = await context.poll(
    'frames() to list the same-origin and the cross-origin iframe',
    async () => {
      last = await context.expectValue('frames()', () => context.driver.frames(), { contract: framesContract });
      const same = last.find((frame) => frame.url === wanted.same);
      const cross = last.find((frame) => frame.url === wanted.cross);
      return same && cross ? { same, cross } : undefined;
    },
    frameLoadMs,
  );
  if (!found) {
    throw context.fail({
      contract: framesContract,
      expected: `within ${frameLoadMs} ms of goto, frames ${wanted.same} (same origin) and ${wanted.cross} (cross origin)`,
      received: describeValue(last),
      fix: "list every frame of the active tab, out-of-process (cross-origin) ones included (Playwright's page.frames(); CDP: Page.getFrameTree plus each OOPIF target)",
    });
  }
  return { url, frames: last, ...found };
}

const near = (left: number, right: number): boolean => Math.abs(left - right) <= offsetSlack;

export const frameChecks: DriverCheck[] = [
  {
    name: 'frames › lists the top frame first, then same- and cross-origin children with their parent and offset',
    run: async (context) => {
      const { url, frames, same, cross } = await openFramesPage(context);
      const top = frames[0];
      if (!top || top.parentId !== undefined || top.url !== url) {
        throw context.fail({
          contract: framesContract,
          expected: `the top frame first: url ${url}, no parentId`,
          received: describeValue(top),
          fix: "put the active tab's main frame first and leave its parentId out",
        });
      }
      const boxes = await context.probe(iframeBoxesScript, undefined, top.id);
      for (const [frame, iframeId] of [
        [same, 'same'],
        [cross, 'cross'],
      ] as const) {
        const box = boxes.find((candidate) => candidate.id === iframeId);
        const offset = frame.offset;
        const sizeOk = !frame.size || !box || (Math.abs(frame.size.width - box.width) <= 2 && Math.abs(frame.size.height - box.height) <= 2);
        if (!box || frame.parentId !== top.id || !offset || !near(offset.x, box.x) || !near(offset.y, box.y) || !sizeOk) {
          throw context.fail({
            contract: framesContract,
            expected: `the ${iframeId === 'same' ? 'same-origin' : 'cross-origin'} iframe with parentId ${top.id} and offset ${describeValue(box ? { x: box.x, y: box.y } : undefined)} (its content box, inside the border)${frame.size && box ? `, size ${box.width}×${box.height}` : ''}`,
            received: describeValue(frame),
            fix: "measure the iframe element in its parent's viewport: getBoundingClientRect() plus clientLeft/clientTop (the border) and the padding; give the parent frame's id",
          });
        }
      }
    },
  },
  {
    name: 'frames › leaves the offset out for a display:none iframe',
    run: async (context) => {
      await openFramesPage(context);
      const frames = await context.expectValue('frames()', () => context.driver.frames(), { contract: framesContract });
      const hidden = frames.find((frame) => frame.url === childUrls(context).hidden);
      // Leaving a frame that cannot be seen out of the list keeps the contract as well.
      if (hidden && hidden.offset !== undefined) {
        throw context.fail({
          contract: 'a child frame the user cannot see (display:none, opacity 0, hidden, covered) has no offset, so the core leaves it out of the snapshot',
          expected: 'the display:none iframe without offset (or not listed)',
          received: describeValue(hidden),
          fix: 'leave `offset` out when the iframe element has no box (getClientRects() is empty, a 0×0 rect) or is hidden or transparent',
        });
      }
    },
  },
  {
    name: 'frames › keeps frame ids across calls',
    run: async (context) => {
      const { frames: first } = await openFramesPage(context);
      const second = await context.expectValue('frames() again', () => context.driver.frames(), { contract: framesContract });
      const idsByUrl = (frames: readonly FrameInfo[]): string => JSON.stringify(frames.map((frame) => [frame.url, frame.id]).sort());
      if (idsByUrl(first) !== idsByUrl(second)) {
        throw context.fail({
          contract: 'frame ids stay the same while a frame lives: element refs of a snapshot carry them',
          expected: describeValue(first.map((frame) => `${frame.id} ${frame.url}`)),
          received: describeValue(second.map((frame) => `${frame.id} ${frame.url}`)),
          fix: 'give each frame an id on first sight and keep it (a WeakMap from frame to id), instead of numbering frames by position on each call',
        });
      }
    },
  },
  {
    name: 'evaluate › runs a page script with a JSON argument and returns its JSON value',
    run: async (context) => {
      await context.open('controls');
      const argument: EchoArgument = { text: 'caf\u00e9 "quoted" \\ </script>', count: 21, list: [1, 'two', null], nested: { flag: true } };
      const result = await context.probe(echoScript, argument);
      const expected = { echoed: argument, doubled: 42, joined: '1|two|null', title: 'Controls' };
      if (JSON.stringify(result) !== JSON.stringify(expected)) {
        throw context.fail({
          contract: evaluateContract,
          expected: describeValue(expected),
          received: describeValue(result),
          fix: evaluateFix,
        });
      }
    },
  },
  {
    name: 'evaluate › runs in the frame it is given',
    run: async (context) => {
      const { frames } = await openFramesPage(context);
      for (const frame of frames) {
        const location = await context.probe(locationScript, undefined, frame.id);
        if (location.href !== frame.url) {
          throw context.fail({
            contract: 'evaluate(frameId, …) runs the script in the document of that frame, cross-origin frames included',
            expected: `the script to run in ${frame.url} (frame ${frame.id})`,
            received: `it ran in ${location.href}`,
            fix: 'look the frame up by its id and evaluate in its execution context, not in the top frame',
          });
        }
      }
    },
  },
  {
    name: 'evaluate › awaits a script that returns a promise',
    run: async (context) => {
      await context.open('controls');
      const result = await context.probe(delayedScript, 150);
      const expected = { waited: 150, title: 'Controls' };
      if (JSON.stringify(result) !== JSON.stringify(expected)) {
        throw context.fail({
          contract: `${evaluateContract}; a promise is awaited`,
          expected: describeValue(expected),
          received: describeValue(result),
          fix: "await the script's value in the page before serialising it: pageScriptExpression does (Playwright's frame.evaluate awaits it; CDP needs awaitPromise: true)",
        });
      }
    },
  },
  {
    name: 'evaluate › a frame that is gone is a retryable BrowserError',
    run: async (context) => {
      const { same, frames } = await openFramesPage(context);
      const topId = frames[0]?.id;
      await context.probe(removeElementsScript, ['same'], topId);
      const gone = await context.poll(
        'frames() to stop listing the removed iframe',
        async () => {
          const now = await context.expectValue('frames()', () => context.driver.frames(), { contract: framesContract });
          return now.some((frame) => frame.id === same.id) ? undefined : true;
        },
        frameLoadMs,
      );
      if (!gone) {
        throw context.fail({
          contract: 'frames() lists only the frames that exist now',
          expected: `frame ${same.id} gone from frames() once its iframe was removed`,
          received: 'frames() still lists it',
          fix: 'skip detached frames when listing (Playwright: frame.isDetached())',
        });
      }
      const contract = 'evaluate() in a frame that is gone rejects with a retryable BrowserError, so the core reads the page again';
      const error = await context.expectRejection(
        `evaluate(${same.id}) in the removed frame`,
        () => context.driver.evaluate(same.id, locationScript, undefined),
        {
          contract,
          fix: `throw new BrowserError(\`The frame \${frameId} is gone. Read the page state again.\`, { retryable: true })`,
        },
      );
      if (!isRetryableBrowserError(error)) {
        throw context.fail({
          contract,
          expected: 'a BrowserError with retryable: true',
          received: describeValue(error),
          fix: `throw new BrowserError(\`The frame \${frameId} is gone. Read the page state again.\`, { retryable: true })`,
          cause: error,
        });
      }
    },
  },
  {
    name: 'snapshot › the core reads a button, a link, an input and a select',
    run: async (context) => {
      const url = await context.open('controls');
      const state = await context.capture();
      context.elementOf(state, 'button', 'Save draft');
      context.elementOf(state, 'a', 'Read the guide');
      context.elementOf(state, 'input', 'Your name');
      context.elementOf(state, 'select', 'Colour');
      if (state.url !== url || state.title !== 'Controls') {
        throw context.fail({
          contract: 'activeTab() reports the URL and title of the page it shows; the model reads them',
          expected: `url ${url}, title "Controls"`,
          received: `url ${describeValue(state.url)}, title ${describeValue(state.title)}`,
          fix: "report the active page's URL and document title in TabInfo",
        });
      }
    },
  },
  {
    name: "snapshot › the core reads a cross-origin iframe's button",
    run: async (context) => {
      const { cross } = await openFramesPage(context);
      const state = await context.capture();
      const button = context.elementOf(state, 'button', 'Frame button cross');
      if (button.frameId !== cross.id) {
        throw context.fail({
          contract: "an element's ref carries the id of the frame it lives in, as frames() gave it",
          expected: `frameId ${cross.id}`,
          received: describeValue(button),
          fix: 'keep frame ids stable between frames() and evaluate()',
        });
      }
    },
  },
];
