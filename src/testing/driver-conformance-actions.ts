// The checks of the driver conformance kit on the members of issue 24: hover, doubleClick, a right
// click, dragAndDrop, mouseClick, reload and the page's dialogs (dialogs, handleDialog). Each member is
// optional with no default: a driver without it passes its part, since the actions then say so.

import type { DialogReport, ElementRef } from '../browser/types';
import { definePageScript } from '../dom/page-runtime';
import { describeValue } from './conformance';
import { isRetryableBrowserError, type DriverCaseContext, type DriverCheck } from './driver-conformance-harness';

/** What the gesture page's listeners recorded. */
interface GestureRecord {
  readonly events: readonly string[];
  readonly order: readonly string[];
  readonly loads: number;
  readonly answers: readonly string[];
}

/**
 * Turns the loaded page into the gesture fixture: a hover target, a double-click target, a
 * context-menu target, an HTML5 draggable card and drop zone, a pointer-driven list, a canvas, and a
 * button that opens a confirm. Each listener records what it saw (and whether it was trusted).
 */
const gesturePageScript = definePageScript('plannav.conformance/gesture-page', (): boolean => {
  const loads = Number(sessionStorage.getItem('conformance-loads') ?? '0') + 1;
  sessionStorage.setItem('conformance-loads', String(loads));
  document.body.innerHTML = `<style>.t{display:inline-block;margin:8px;padding:10px;border:1px solid #888}li{height:30px;margin:4px;list-style:none;background:#def;width:200px;user-select:none}</style>
    <div class="t" id="hover" role="button" tabindex="0">Hover target</div>
    <div class="t" id="double" role="button" tabindex="0">Double target</div>
    <div class="t" id="context" role="button" tabindex="0">Context target</div>
    <div class="t" id="card" draggable="true" role="button" tabindex="0">Drag card</div>
    <div class="t" id="zone" role="button" tabindex="0" style="width:160px;height:60px">Drop zone</div>
    <ul id="list"><li role="button" tabindex="0" data-id="a">First row</li><li role="button" tabindex="0" data-id="b">Second row</li><li role="button" tabindex="0" data-id="c">Third row</li></ul>
    <canvas id="canvas" width="120" height="60" style="display:block;margin:8px"></canvas>
    <button id="ask">Ask question</button>`;
  const record = { events: [] as string[], order: ['a', 'b', 'c'], loads, answers: [] as string[] };
  (window as unknown as { gestureRecord: typeof record }).gestureRecord = record;
  const on = (id: string, type: string, note: (event: Event) => string): void =>
    document.getElementById(id)?.addEventListener(type, (event) => record.events.push(note(event)));
  on('hover', 'mouseenter', (event) => `hover:${event.isTrusted}`);
  on('double', 'dblclick', (event) => `dblclick:${(event as MouseEvent).detail}:${event.isTrusted}`);
  on('context', 'contextmenu', (event) => {
    event.preventDefault();
    return `contextmenu:${(event as MouseEvent).button}:${event.isTrusted}`;
  });
  on('context', 'click', () => 'context-left-click');
  on('card', 'dragstart', (event) => {
    (event as DragEvent).dataTransfer?.setData('text/plain', 'card');
    return 'dragstart';
  });
  const zone = document.getElementById('zone');
  zone?.addEventListener('dragover', (event) => event.preventDefault());
  on('zone', 'drop', (event) => {
    event.preventDefault();
    return `drop:${(event as DragEvent).dataTransfer?.getData('text/plain') ?? ''}`;
  });
  on('canvas', 'click', (event) => `canvas:${Math.round((event as MouseEvent).offsetX)},${Math.round((event as MouseEvent).offsetY)}:${event.isTrusted}`);
  const list = document.getElementById('list') as HTMLElement;
  let dragged: HTMLElement | null = null;
  list.addEventListener('pointerdown', (event) => (dragged = (event.target as HTMLElement).closest('li')));
  window.addEventListener('pointerup', (event) => {
    const target = document.elementFromPoint(event.clientX, event.clientY)?.closest('li');
    if (dragged && target && target !== dragged) {
      target.after(dragged);
      record.order = [...list.children].map((item) => (item as HTMLElement).dataset.id ?? '');
    }
    dragged = null;
  });
  document.getElementById('ask')?.addEventListener('click', () => {
    record.answers.push(String(confirm('Proceed with the order?')));
  });
  return true;
});

const gestureRecordScript = definePageScript(
  'plannav.conformance/gesture-record',
  (): GestureRecord | null => (window as unknown as { gestureRecord?: GestureRecord }).gestureRecord ?? null,
);

/** The box of an element of the top frame, in the viewport. */
const boxScript = definePageScript('plannav.conformance/box', (id: string): { x: number; y: number } | null => {
  const box = document.getElementById(id)?.getBoundingClientRect();
  return box ? { x: box.left, y: box.top } : null;
});

/** Opens the controls page and makes it the gesture page; returns the refs of its targets. */
async function gesturePage(context: DriverCaseContext): Promise<Record<string, ElementRef>> {
  await context.open('controls');
  await context.probe(gesturePageScript, undefined);
  const state = await context.capture();
  const refs: Record<string, ElementRef> = {};
  for (const [key, tag, text] of [
    ['hover', 'div', 'Hover target'],
    ['double', 'div', 'Double target'],
    ['context', 'div', 'Context target'],
    ['card', 'div', 'Drag card'],
    ['zone', 'div', 'Drop zone'],
    ['first', 'li', 'First row'],
    ['third', 'li', 'Third row'],
  ] as const) {
    refs[key] = context.elementOf(state, tag, text);
  }
  return refs;
}

async function gestureRecord(context: DriverCaseContext): Promise<GestureRecord> {
  const record = await context.probe(gestureRecordScript, undefined);
  if (record) return record;
  throw context.fail({
    contract: 'a gesture acts on the page it was given, without loading another',
    expected: "the gesture page's record of its listeners",
    received: 'none: the page was replaced',
    fix: 'act in the active tab, on the element of the last snapshot',
  });
}

/** Fails unless `record.events` holds `event`. */
function expectEvent(context: DriverCaseContext, record: GestureRecord, event: string, contract: string, fix: string): void {
  if (record.events.includes(event)) return;
  throw context.fail({ contract, expected: `the page to see ${event}`, received: `the page saw ${describeValue(record.events)}`, fix });
}

const hoverContract = 'hover(ref) moves the real mouse over the element of the last snapshot (a trusted mouseenter) and leaves it there';
const doubleContract = 'doubleClick(ref) double-clicks the element with the real mouse: a trusted dblclick whose detail is 2';
const rightContract = "click(ref, { button: 'right' }) opens the element's context menu: a contextmenu event with button 2, and no left click";
const dragContract =
  'dragAndDrop(source, target) drags with the real mouse: press on the source, moves onto the target, release; HTML5 drag events and pointer events both follow';
const mouseContract = 'mouseClick(x, y) clicks a point of the viewport in CSS pixels with the real mouse';
const reloadContract = 'reload() loads the active tab’s document again and resolves once it has settled';
const dialogContract =
  'a dialog the page opens is reported by dialogs() while it is open (reading it never waits on the page), a call that needs the page meanwhile rejects promptly, and handleDialog() answers it';

export const actionChecks: DriverCheck[] = [
  {
    name: 'gestures › hover, double click and right click reach the element with trusted events',
    run: async (context) => {
      const refs = await gesturePage(context);
      const { driver, resolved } = context;
      const hover = driver.hover?.bind(driver);
      const doubleClick = driver.doubleClick?.bind(driver);
      if (hover) {
        await context.expectValue('hover() on a target', () => hover(refs.hover as ElementRef), { contract: hoverContract });
        expectEvent(
          context,
          await gestureRecord(context),
          'hover:true',
          hoverContract,
          "move the real mouse to the hit-tested point of the element (Playwright's mouse.move)",
        );
      }
      if (doubleClick) {
        await context.expectValue('doubleClick() on a target', () => doubleClick(refs.double as ElementRef), { contract: doubleContract });
        expectEvent(
          context,
          await gestureRecord(context),
          'dblclick:2:true',
          doubleContract,
          'press and release twice at one point, the second time with clickCount 2',
        );
      }
      await context.expectValue("click(ref, { button: 'right' })", () => resolved.click(refs.context as ElementRef, { button: 'right' }), {
        contract: rightContract,
      });
      const record = await gestureRecord(context);
      if (!record.events.some((event) => event.startsWith('contextmenu:2:')) || record.events.includes('context-left-click')) {
        throw context.fail({
          contract: rightContract,
          expected: 'a contextmenu event with button 2, and no click',
          received: `the page saw ${describeValue(record.events)}`,
          fix: "click with the right button (Playwright's button: 'right'), or dispatch contextmenu in the page",
        });
      }
    },
  },
  {
    name: 'gestures › dragAndDrop works on an HTML5 drag page and on a pointer-events list',
    run: async (context) => {
      const { driver } = context;
      const drag = driver.dragAndDrop?.bind(driver);
      if (!drag) return;
      const refs = await gesturePage(context);
      await context.expectValue('dragAndDrop() of a draggable card onto a drop zone', () => drag(refs.card as ElementRef, refs.zone as ElementRef), {
        contract: dragContract,
        ms: 15_000,
      });
      const html5 = await gestureRecord(context);
      if (!html5.events.includes('dragstart') || !html5.events.includes('drop:card')) {
        throw context.fail({
          contract: dragContract,
          expected: 'dragstart on the card, then a drop on the zone carrying its data',
          received: `the page saw ${describeValue(html5.events)}`,
          fix: 'press on the source, move in several steps onto the target and release there, with the real mouse (the browser makes the drag events)',
        });
      }
      await context.expectValue('dragAndDrop() of a row onto the last row', () => drag(refs.first as ElementRef, refs.third as ElementRef), {
        contract: dragContract,
        ms: 15_000,
      });
      const order = (await gestureRecord(context)).order.join(',');
      if (order !== 'b,c,a') {
        throw context.fail({
          contract: dragContract,
          expected: 'the pointer-driven list reordered to b,c,a',
          received: `the order ${order}`,
          fix: 'send pointer moves between the press and the release, and release over the target',
        });
      }
    },
  },
  {
    name: 'gestures › mouseClick clicks a point of the viewport, and reload loads the page again',
    run: async (context) => {
      const { driver } = context;
      await gesturePage(context);
      const mouseClick = driver.mouseClick?.bind(driver);
      if (mouseClick) {
        const box = await context.probe(boxScript, 'canvas');
        if (!box) throw context.fail({ contract: mouseContract, expected: 'the canvas on the page', received: 'none', fix: 'evaluate in the active tab' });
        await context.expectValue('mouseClick() on the canvas', () => mouseClick(box.x + 30, box.y + 20), { contract: mouseContract });
        const record = await context.poll(
          'the canvas click',
          async () => (await gestureRecord(context)).events.find((event) => event.startsWith('canvas:')),
          2000,
        );
        if (record !== 'canvas:30,20:true') {
          throw context.fail({
            contract: mouseContract,
            expected: 'a trusted click at (30, 20) of the canvas',
            received: describeValue(record ?? (await gestureRecord(context)).events),
            fix: 'dispatch the press and release at the point given, in the top page’s viewport (CSS pixels, not device pixels)',
          });
        }
      }
      const reload = driver.reload?.bind(driver);
      if (reload) {
        await context.expectValue('reload()', () => reload(), { contract: reloadContract, ms: 15_000 });
        const fresh = await context.probe(gestureRecordScript, undefined);
        if (fresh !== null) {
          throw context.fail({
            contract: reloadContract,
            expected: 'a new document, without the old one’s state',
            received: 'the old document is still there',
            fix: "reload the tab (Playwright's page.reload, CDP Page.reload)",
          });
        }
      }
    },
  },
  {
    name: 'dialogs › an open dialog is reported without touching the page, blocks nothing for long, and handleDialog answers it',
    run: async (context) => {
      const { driver, resolved } = context;
      const dialogs = driver.dialogs?.bind(driver);
      const handleDialog = driver.handleDialog?.bind(driver);
      if (!dialogs || !handleDialog) return;
      await gesturePage(context);
      const state = await context.capture();
      const ask = context.elementOf(state, 'button', 'Ask question');
      await context.expectValue('click() on a button that opens a confirm', () => resolved.click(ask), {
        contract: dialogContract,
        fix: 'stop waiting for the click once the page opens a dialog (the page runs no script until it is answered)',
      });
      const report = await context.poll(
        'dialogs() to report the confirm',
        async () => {
          const now: DialogReport = await context.expectValue('dialogs()', () => dialogs(), { contract: dialogContract, ms: 3000 });
          return now.open;
        },
        5000,
      );
      if (report?.type !== 'confirm' || report.message !== 'Proceed with the order?') {
        throw context.fail({
          contract: dialogContract,
          expected: 'dialogs().open to be { type: "confirm", message: "Proceed with the order?" }',
          received: describeValue(report),
          fix: "listen for the page's dialogs (Playwright's page.on('dialog')), keep the open one and report it without evaluating in the page",
        });
      }
      const topFrame = (await context.expectValue('frames()', () => driver.frames().catch(() => []), { contract: dialogContract, ms: 3000 }))[0]?.id ?? '';
      const blocked = await context.expectRejection('evaluate() while the dialog is open', () => driver.evaluate(topFrame, gestureRecordScript, undefined), {
        contract: dialogContract,
        ms: 5000,
        fix: 'reject at once with a retryable BrowserError saying a dialog is open: the page cannot answer until it is',
      });
      if (!isRetryableBrowserError(blocked)) {
        throw context.fail({
          contract: dialogContract,
          expected: 'a retryable BrowserError',
          received: describeValue(blocked),
          fix: 'reject with new BrowserError(…, { retryable: true })',
        });
      }
      const closed = await context.expectValue('handleDialog({ accept: true })', () => handleDialog({ accept: true }), { contract: dialogContract });
      const answers = (await gestureRecord(context)).answers;
      if (!closed.accepted || closed.message !== 'Proceed with the order?' || answers.join(',') !== 'true') {
        throw context.fail({
          contract: dialogContract,
          expected: 'handleDialog to resolve with the dialog, accepted, and the page’s confirm() to return true',
          received: `resolved ${describeValue(closed)}; the page got ${describeValue(answers)}`,
          fix: "accept the dialog (Playwright's dialog.accept()) and resolve with what it said",
        });
      }
      const after = await context.expectValue('dialogs() after the answer', () => dialogs(), { contract: dialogContract });
      if (after.open)
        throw context.fail({
          contract: dialogContract,
          expected: 'no open dialog',
          received: describeValue(after.open),
          fix: 'forget a dialog once it is answered',
        });
    },
  },
];
