// The pointer and page actions of issue 24 in real headless Chromium, through the public act() after
// observe(), with PlaywrightDriver and PuppeteerDriver: hover_element (a menu that exists only while
// hovered, in the page and in an iframe), double_click_element (a single click does not count),
// right_click_element (a custom context menu), drag_and_drop (HTML5 drag events, and a sortable list
// driven by pointer events), click_coordinates (a canvas, scrolled), reload_page (a sessionStorage
// counter, the URL policy), wait_for_text (appear, disappear, run out of time), the bad inputs, and
// one Executor task that hovers and clicks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, URLNotAllowedError } from '../../src/errors';
import { act, Executor, observe, type ActResult, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { driverKinds, hasElement, html, indexOf, missingIndex, pollUntil, servePages, type PageServer, type TestTab } from '../helpers/actions-more-kit';
import { rejectionOf } from '../helpers/rejection';

/** Bounds every act() of this file: a hang fails the test with a TimeoutError instead of stalling it. */
const bounded = { timeout: 15_000 };

const hoverPage = html(
  'Hover menu',
  `<style>.menu{display:none;padding:4px}.wrap:hover .menu{display:block}.wrap{display:inline-block;padding:6px}</style>
   <h1>Shop header</h1>
   <div class="wrap" id="wrap"><button id="account">Account</button><div class="menu" id="menu"></div></div>
   <p>Some text between.</p>
   <div class="wrap" id="ghost-wrap"><button id="ghost">Archive menu</button></div>
   <div class="wrap" id="temp-wrap"><button id="temp">Temporary trigger</button></div>
   <p id="status">Signed in</p>`,
  `window.log = [];
   const wrap = document.getElementById('wrap');
   const menu = document.getElementById('menu');
   wrap.addEventListener('mouseenter', (event) => {
     log.push('enter:' + event.isTrusted);
     menu.innerHTML = '<button id="signout">Sign out</button><button id="orders">My orders</button>';
   });
   wrap.addEventListener('mouseleave', () => { log.push('leave'); menu.innerHTML = ''; });
   menu.addEventListener('click', (event) => {
     const id = event.target.id;
     log.push('click:' + id);
     if (id === 'signout') document.getElementById('status').textContent = 'Signed out';
   });
   for (const id of ['ghost-wrap', 'temp-wrap']) document.getElementById(id).addEventListener('mouseenter', () => log.push('enter:' + id));`,
);

const framedPage = html(
  'Framed widgets',
  `<div style="height:160px">Banner above the frame</div>
   <iframe id="frame" src="/frame-inner.html" style="margin-left:180px;width:600px;height:320px;border:0"></iframe>`,
);

const frameInner = html(
  'Inner frame',
  `<div style="height:60px">Inside the frame</div>
   <button id="tip" style="margin-left:120px">Shipping info</button>
   <button id="edit" style="margin-left:40px">Rename list</button>
   <p id="tooltip"></p>`,
  `window.events = [];
   document.getElementById('tip').addEventListener('mouseenter', (event) => {
     events.push('enter:' + event.isTrusted);
     document.getElementById('tooltip').textContent = 'Ships in 2 days';
   });
   const edit = document.getElementById('edit');
   edit.addEventListener('click', () => events.push('click'));
   edit.addEventListener('dblclick', (event) => events.push('dblclick:' + event.detail + ':' + event.isTrusted));`,
);

const doublePage = html(
  'Double click',
  `<h1>Note</h1><button id="title">Edit title</button><p id="mode">Viewing</p>
   <div id="gone-wrap"><button id="gone">Old row</button></div>
   <button id="hidden-later">Hidden later</button>`,
  `window.clicks = 0; window.dbl = [];
   const title = document.getElementById('title');
   title.addEventListener('click', () => { clicks += 1; });
   title.addEventListener('dblclick', (event) => {
     dbl.push({ detail: event.detail, trusted: event.isTrusted });
     document.getElementById('mode').textContent = 'Editing';
   });
   for (const id of ['gone', 'hidden-later']) document.getElementById(id).addEventListener('dblclick', () => dbl.push({ id }));`,
);

const rightPage = html(
  'Context menu',
  `<h1>Files</h1>
   <div id="file" role="button" tabindex="0" style="display:inline-block;padding:10px;border:1px solid">report.pdf</div>
   <div id="ctx" style="display:none;position:absolute;background:#eee"><button id="rename">Rename file</button></div>
   <p id="status">No menu</p>`,
  `window.menuEvents = []; window.leftClicks = 0;
   const file = document.getElementById('file');
   const ctx = document.getElementById('ctx');
   file.addEventListener('click', () => { leftClicks += 1; });
   file.addEventListener('contextmenu', (event) => {
     event.preventDefault();
     menuEvents.push({ button: event.button, trusted: event.isTrusted });
     ctx.style.display = 'block';
     ctx.style.left = event.pageX + 'px';
     ctx.style.top = event.pageY + 'px';
   });
   document.getElementById('rename').addEventListener('click', () => {
     document.getElementById('status').textContent = 'Renaming report.pdf';
     ctx.style.display = 'none';
   });`,
);

const html5DragPage = html(
  'Kanban',
  `<style>.zone{display:inline-block;vertical-align:top;width:260px;height:220px;margin:20px;border:2px solid #888}
   .card{margin:10px;padding:10px;background:#ffd}</style>
   <div class="zone" id="todo" role="button" tabindex="0" aria-label="Todo column"><h2>Todo</h2>
     <div class="card" id="card" draggable="true" role="button" tabindex="0">Write report</div></div>
   <div class="zone" id="done" role="button" tabindex="0" aria-label="Done column"><h2>Done</h2></div>`,
  `window.dragLog = [];
   document.getElementById('card').addEventListener('dragstart', (event) => {
     dragLog.push('dragstart');
     event.dataTransfer.setData('text/plain', event.target.id);
   });
   for (const zone of document.querySelectorAll('.zone')) {
     zone.addEventListener('dragover', (event) => event.preventDefault());
     zone.addEventListener('drop', (event) => {
       event.preventDefault();
       const id = event.dataTransfer.getData('text/plain');
       dragLog.push('drop:' + zone.id + ':' + id);
       const card = document.getElementById(id);
       if (card && card !== zone) zone.appendChild(card);
     });
   }`,
);

const pointerDragPage = html(
  'Sortable',
  `<style>li{height:40px;line-height:40px;margin:6px;padding-left:10px;background:#def;list-style:none;user-select:none;touch-action:none;width:300px}</style>
   <h1>Priorities</h1>
   <ul id="list"><li role="button" tabindex="0" data-id="alpha">Alpha task</li><li role="button" tabindex="0" data-id="beta">Beta task</li><li role="button" tabindex="0" data-id="gamma">Gamma task</li></ul>`,
  `let dragged = null; let moves = 0; window.drops = 0;
   const list = document.getElementById('list');
   list.addEventListener('pointerdown', (event) => { dragged = event.target.closest('li'); moves = 0; });
   window.addEventListener('pointermove', () => { if (dragged) moves += 1; });
   window.addEventListener('pointerup', (event) => {
     const target = document.elementFromPoint(event.clientX, event.clientY)?.closest('li');
     if (dragged && moves > 0 && target && target !== dragged) {
       const items = [...list.children];
       if (items.indexOf(target) > items.indexOf(dragged)) target.after(dragged); else target.before(dragged);
       drops += 1;
     }
     dragged = null;
   });
   window.order = () => [...list.children].map((item) => item.dataset.id);`,
);

const canvasPage = html(
  'Canvas',
  `<style>body{margin:0}</style><div style="height:140px">Chart header</div>
   <canvas id="chart" width="400" height="200" style="margin-left:70px;display:block"></canvas>
   <div style="height:2000px">Footer</div>`,
  `const canvas = document.getElementById('chart');
   const g = canvas.getContext('2d');
   g.fillStyle = '#c00'; g.fillRect(0, 0, 200, 200);
   g.fillStyle = '#00c'; g.fillRect(200, 0, 200, 200);
   window.hits = [];
   canvas.addEventListener('click', (event) => hits.push({ x: event.offsetX, y: event.offsetY, region: event.offsetX < 200 ? 'red' : 'blue', trusted: event.isTrusted }));`,
);

const reloadPage = html(
  'Reload counter',
  `<h1>Counter</h1><p id="count"></p>`,
  `const loads = Number(sessionStorage.getItem('loads') || 0) + 1;
   sessionStorage.setItem('loads', String(loads));
   document.getElementById('count').textContent = 'Loaded ' + loads + ' times';`,
);

const waitPage = html(
  'Waiting',
  `<h1>Orders</h1><div id="out"></div><div id="spinner">Loading results</div><div id="banner">Saving draft</div><button>Refresh</button>`,
  `window.later = (ms, text) => setTimeout(() => { const p = document.createElement('p'); p.textContent = text; document.getElementById('out').append(p); }, ms);
   window.removeSpinner = (ms) => setTimeout(() => document.getElementById('spinner').remove(), ms);
   window.hideBanner = (ms) => setTimeout(() => { document.getElementById('banner').style.display = 'none'; }, ms);`,
);

let server: PageServer;

beforeAll(async () => {
  server = await servePages({
    '/hover.html': hoverPage,
    '/framed.html': framedPage,
    '/frame-inner.html': frameInner,
    '/double.html': doublePage,
    '/right.html': rightPage,
    '/drag-html5.html': html5DragPage,
    '/drag-pointer.html': pointerDragPage,
    '/canvas.html': canvasPage,
    '/reload.html': reloadPage,
    '/wait.html': waitPage,
  });
});

afterAll(async () => {
  await server?.close();
});

/** A failed act() may only be a ConfigError naming `field`, or a result with an error: never a success. */
async function refused(call: Promise<ActResult>, field: string): Promise<void> {
  try {
    const result = await call;
    expect(result.error, 'the action must report that it could not run').toEqual(expect.any(String));
  } catch (error) {
    expect(ConfigError.isInstance(error), `expected a ConfigError, got ${String(error)}`).toBe(true);
    expect((error as ConfigError).field).toBe(field);
  }
}

describe.each(driverKinds())('$name', (kind) => {
  let tab: TestTab;

  beforeAll(async () => {
    await kind.start();
  }, 60_000);

  afterAll(async () => {
    await kind.stop();
  });

  /** A fresh tab on `path`. */
  async function open(path: string): Promise<TestTab> {
    tab = await kind.tab();
    await tab.driver.goto(server.url(path));
    return tab;
  }

  async function done(): Promise<void> {
    await tab?.close();
  }

  describe('hover_element', () => {
    it('opens a menu that exists only while hovered, whose item can then be clicked', async () => {
      const { driver, evaluate } = await open('hover.html');
      try {
        const state = await observe(driver);
        expect(hasElement(state, 'Sign out')).toBe(false);
        const result = await act(driver, { action: 'hover_element', params: { index: indexOf(state, 'Account') }, state }, bounded);
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('hover_element');
        expect(await evaluate('document.getElementById("wrap").matches(":hover")')).toBe(true);
        expect(await evaluate('window.log')).toEqual(['enter:true']);

        const hovered = await observe(driver);
        expect(hasElement(hovered, 'Sign out')).toBe(true);
        const clicked = await act(driver, { action: 'click_element', params: { index: indexOf(hovered, 'Sign out') }, state: hovered }, bounded);
        expect(clicked.error).toBeUndefined();
        expect(await evaluate('window.log')).toContain('click:signout');
        expect(await evaluate('document.getElementById("status").textContent')).toBe('Signed out');
      } finally {
        await done();
      }
    });

    it('hovers a button inside an iframe below other content', async () => {
      const { driver, evaluate } = await open('framed.html');
      try {
        const state = await pollUntil(
          () => observe(driver),
          (value) => hasElement(value, 'Shipping info'),
        );
        const result = await act(driver, { action: 'hover_element', params: { index: indexOf(state, 'Shipping info') }, state }, bounded);
        expect(result.error).toBeUndefined();
        expect(await evaluate('document.getElementById("frame").contentWindow.events')).toEqual(['enter:true']);
        expect(await evaluate('document.getElementById("frame").contentDocument.getElementById("tooltip").textContent')).toBe('Ships in 2 days');
      } finally {
        await done();
      }
    });

    it('reports an element hidden since the page was read, and one removed, without hovering anything', async () => {
      const { driver, evaluate } = await open('hover.html');
      try {
        const state = await observe(driver);
        const ghost = indexOf(state, 'Archive menu');
        const temp = indexOf(state, 'Temporary trigger');
        await evaluate('document.getElementById("ghost-wrap").style.display = "none"; document.getElementById("temp-wrap").remove()');

        const hidden = await act(driver, { action: 'hover_element', params: { index: ghost }, state }, bounded);
        expect(hidden.error).toEqual(expect.any(String));
        const removed = await act(driver, { action: 'hover_element', params: { index: temp }, state }, bounded);
        expect(removed.error).toMatch(new RegExp(`Element ${temp} is no longer on the page`));
        expect(await evaluate('window.log')).toEqual([]);
      } finally {
        await done();
      }
    });

    it('rejects an index of the wrong type and one not in the state with a ConfigError naming params.index', async () => {
      const { driver, evaluate } = await open('hover.html');
      try {
        const state = await observe(driver);
        const account = indexOf(state, 'Account');
        const text = await rejectionOf<ConfigError>(act(driver, { action: 'hover_element', params: { index: String(account) }, state }, bounded));
        expect(ConfigError.isInstance(text)).toBe(true);
        expect(text.field).toBe('params.index');
        const fraction = await rejectionOf<ConfigError>(act(driver, { action: 'hover_element', params: { index: account + 0.5 }, state }, bounded));
        expect(fraction.field).toBe('params.index');
        const missing = await rejectionOf<ConfigError>(act(driver, { action: 'hover_element', params: { index: missingIndex(state) }, state }, bounded));
        expect(ConfigError.isInstance(missing)).toBe(true);
        expect(missing.field).toBe('params.index');
        const stateless = await rejectionOf<ConfigError>(act(driver, { action: 'hover_element', params: { index: account } }, bounded));
        expect(stateless.field).toBe('state');
        expect(await evaluate('window.log')).toEqual([]);
      } finally {
        await done();
      }
    });
  });

  describe('double_click_element', () => {
    it('fires dblclick with detail 2, where a single click did not count', async () => {
      const { driver, evaluate } = await open('double.html');
      try {
        const state = await observe(driver);
        const title = indexOf(state, 'Edit title');
        const single = await act(driver, { action: 'click_element', params: { index: title }, state }, bounded);
        expect(single.error).toBeUndefined();
        expect(await evaluate('window.dbl')).toEqual([]);
        expect(await evaluate('document.getElementById("mode").textContent')).toBe('Viewing');

        const result = await act(driver, { action: 'double_click_element', params: { index: title }, state }, bounded);
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('double_click_element');
        expect(await evaluate('window.dbl')).toEqual([{ detail: 2, trusted: true }]);
        expect(await evaluate('document.getElementById("mode").textContent')).toBe('Editing');
      } finally {
        await done();
      }
    });

    it('double-clicks a button inside an iframe', async () => {
      const { driver, evaluate } = await open('framed.html');
      try {
        const state = await pollUntil(
          () => observe(driver),
          (value) => hasElement(value, 'Rename list'),
        );
        const result = await act(driver, { action: 'double_click_element', params: { index: indexOf(state, 'Rename list') }, state }, bounded);
        expect(result.error).toBeUndefined();
        const events = await evaluate<string[]>('document.getElementById("frame").contentWindow.events');
        expect(events.filter((event) => event.startsWith('dblclick'))).toEqual(['dblclick:2:true']);
      } finally {
        await done();
      }
    });

    it('reports an element removed or hidden since the page was read, double-clicking nothing', async () => {
      const { driver, evaluate } = await open('double.html');
      try {
        const state = await observe(driver);
        const gone = indexOf(state, 'Old row');
        const hidden = indexOf(state, 'Hidden later');
        await evaluate(
          'document.getElementById("gone-wrap").innerHTML = "<button>Old row</button>"; document.getElementById("hidden-later").style.visibility = "hidden"',
        );
        const removed = await act(driver, { action: 'double_click_element', params: { index: gone }, state }, bounded);
        expect(removed.error).toMatch(new RegExp(`Element ${gone} is no longer on the page`));
        const invisible = await act(driver, { action: 'double_click_element', params: { index: hidden }, state }, bounded);
        expect(invisible.error).toEqual(expect.any(String));
        expect(await evaluate('window.dbl')).toEqual([]);
        const wrong = await rejectionOf<ConfigError>(act(driver, { action: 'double_click_element', params: { index: null }, state }, bounded));
        expect(wrong.field).toBe('params.index');
      } finally {
        await done();
      }
    });
  });

  describe('right_click_element', () => {
    it('opens the page’s own context menu with button 2, no left click, and its item works', async () => {
      const { driver, evaluate } = await open('right.html');
      try {
        const state = await observe(driver);
        expect(hasElement(state, 'Rename file')).toBe(false);
        const result = await act(driver, { action: 'right_click_element', params: { index: indexOf(state, 'report.pdf') }, state }, bounded);
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('right_click_element');
        expect(await evaluate('window.menuEvents')).toEqual([{ button: 2, trusted: true }]);
        expect(await evaluate('window.leftClicks')).toBe(0);

        const open = await observe(driver);
        const rename = await act(driver, { action: 'click_element', params: { index: indexOf(open, 'Rename file') }, state: open }, bounded);
        expect(rename.error).toBeUndefined();
        expect(await evaluate('document.getElementById("status").textContent')).toBe('Renaming report.pdf');
      } finally {
        await done();
      }
    });
  });

  describe('drag_and_drop', () => {
    it('moves a card between columns of a page built on HTML5 drag and drop', async () => {
      const { driver, evaluate } = await open('drag-html5.html');
      try {
        const state = await observe(driver);
        const result = await act(
          driver,
          { action: 'drag_and_drop', params: { index: indexOf(state, 'Write report'), targetIndex: indexOf(state, 'Done column') }, state },
          bounded,
        );
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('drag_and_drop');
        expect(await evaluate('document.getElementById("card").parentElement.id')).toBe('done');
        expect(await evaluate('window.dragLog')).toEqual(['dragstart', 'drop:done:card']);
      } finally {
        await done();
      }
    });

    it('reorders a sortable list driven by pointer events', async () => {
      const { driver, evaluate } = await open('drag-pointer.html');
      try {
        const state = await observe(driver);
        expect(await evaluate('window.order()')).toEqual(['alpha', 'beta', 'gamma']);
        const result = await act(
          driver,
          { action: 'drag_and_drop', params: { index: indexOf(state, 'Alpha task'), targetIndex: indexOf(state, 'Gamma task') }, state },
          bounded,
        );
        expect(result.error).toBeUndefined();
        expect(await evaluate('window.order()')).toEqual(['beta', 'gamma', 'alpha']);
        expect(await evaluate('window.drops')).toBe(1);
      } finally {
        await done();
      }
    });

    it('does not move anything for a drag onto itself or onto an index that is not in the state', async () => {
      const { driver, evaluate } = await open('drag-pointer.html');
      try {
        const state = await observe(driver);
        const alpha = indexOf(state, 'Alpha task');
        await refused(act(driver, { action: 'drag_and_drop', params: { index: alpha, targetIndex: alpha }, state }, bounded), 'params.targetIndex');
        await refused(
          act(driver, { action: 'drag_and_drop', params: { index: alpha, targetIndex: missingIndex(state) }, state }, bounded),
          'params.targetIndex',
        );
        const wrong = await rejectionOf<ConfigError>(
          act(driver, { action: 'drag_and_drop', params: { index: alpha, targetIndex: 'Gamma task' }, state }, bounded),
        );
        expect(ConfigError.isInstance(wrong)).toBe(true);
        expect(wrong.field).toBe('params.targetIndex');
        const noTarget = await rejectionOf<ConfigError>(act(driver, { action: 'drag_and_drop', params: { index: alpha }, state }, bounded));
        expect(noTarget.field).toBe('params.targetIndex');
        expect(await evaluate('window.order()')).toEqual(['alpha', 'beta', 'gamma']);
        expect(await evaluate('window.drops')).toBe(0);
      } finally {
        await done();
      }
    });
  });

  describe('click_coordinates', () => {
    it('clicks the canvas region at viewport coordinates of a scrolled page', async () => {
      const { driver, evaluate } = await open('canvas.html');
      try {
        await evaluate('window.scrollTo(0, 60)');
        const rect = await pollUntil(
          () =>
            evaluate<{ left: number; top: number }>(
              '(() => { const r = document.getElementById("chart").getBoundingClientRect(); return { left: r.left, top: r.top }; })()',
            ),
          (value) => value.top === 80,
        );
        expect(rect).toEqual({ left: 70, top: 80 });

        const blue = await act(driver, { action: 'click_coordinates', params: { x: rect.left + 300, y: rect.top + 50 } }, bounded);
        expect(blue.error).toBeUndefined();
        expect(blue.action).toBe('click_coordinates');
        const red = await act(driver, { action: 'click_coordinates', params: { x: rect.left + 40, y: rect.top + 150 } }, bounded);
        expect(red.error).toBeUndefined();

        const hits = await evaluate<{ x: number; y: number; region: string; trusted: boolean }[]>('window.hits');
        expect(hits.map((hit) => [hit.region, hit.trusted])).toEqual([
          ['blue', true],
          ['red', true],
        ]);
        expect(Math.abs(hits[0]!.x - 300)).toBeLessThanOrEqual(2);
        expect(Math.abs(hits[0]!.y - 50)).toBeLessThanOrEqual(2);
        expect(Math.abs(hits[1]!.x - 40)).toBeLessThanOrEqual(2);
        expect(Math.abs(hits[1]!.y - 150)).toBeLessThanOrEqual(2);
        // A click is not a scroll: the page stays where it was.
        expect(await evaluate('window.scrollY')).toBe(60);
      } finally {
        await done();
      }
    });

    it('refuses coordinates that are not numbers, and clicks nothing outside the viewport', async () => {
      const { driver, evaluate } = await open('canvas.html');
      try {
        const text = await rejectionOf<ConfigError>(act(driver, { action: 'click_coordinates', params: { x: '300', y: 200 } }, bounded));
        expect(ConfigError.isInstance(text)).toBe(true);
        expect(text.field).toBe('params.x');
        const missing = await rejectionOf<ConfigError>(act(driver, { action: 'click_coordinates', params: { x: 300 } }, bounded));
        expect(missing.field).toBe('params.y');
        await refused(act(driver, { action: 'click_coordinates', params: { x: -20, y: 200 } }, bounded), 'params.x');
        await refused(act(driver, { action: 'click_coordinates', params: { x: 100, y: 50_000 } }, bounded), 'params.y');
        expect(await evaluate('window.hits')).toEqual([]);
      } finally {
        await done();
      }
    });
  });

  describe('reload_page', () => {
    it('reloads the tab: the sessionStorage counter goes up and the page’s memory is fresh', async () => {
      const { driver, evaluate } = await open('reload.html');
      try {
        expect(await evaluate('sessionStorage.getItem("loads")')).toBe('1');
        await evaluate('window.marker = "before"');
        const result = await act(driver, { action: 'reload_page', params: {} }, bounded);
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('reload_page');
        expect(await evaluate('sessionStorage.getItem("loads")')).toBe('2');
        expect(await evaluate('typeof window.marker')).toBe('undefined');
        expect(await driver.currentUrl()).toBe(server.url('reload.html'));

        await act(driver, { action: 'reload_page' }, bounded);
        const state = await observe(driver);
        expect(state.elementsText).toContain('Loaded 3 times');
      } finally {
        await done();
      }
    });

    it('does not reload a page the URL policy denies', async () => {
      const { driver, evaluate } = await open('reload.html');
      try {
        const error = await rejectionOf<URLNotAllowedError>(act(driver, { action: 'reload_page' }, { ...bounded, urlPolicy: { allow: ['shop.example'] } }));
        expect(URLNotAllowedError.isInstance(error)).toBe(true);
        expect(error.url).toBe(server.url('reload.html'));
        // act()'s guard leaves a document its policy denies for about:blank as it is installed (the
        // navigation guard's rule), so the tab may no longer show the page; where it does, it was not
        // reloaded. (That no reload is even asked for is checked with FakeBrowserDriver, beside the action.)
        const href = await evaluate<string>('location.href');
        if (href === server.url('reload.html')) expect(await evaluate('sessionStorage.getItem("loads")')).toBe('1');
        else expect(href).toBe('about:blank');
      } finally {
        await done();
      }
    });
  });

  describe('wait_for_text', () => {
    it('returns once text shown by a timer is there, and at once for text already there', async () => {
      const { driver, evaluate } = await open('wait.html');
      try {
        expect(await evaluate('window.later(700, "Order shipped"); document.body.innerText.includes("Order shipped")')).toBe(false);
        const result = await act(driver, { action: 'wait_for_text', params: { text: 'Order shipped' } }, bounded);
        expect(result.error).toBeUndefined();
        expect(result.action).toBe('wait_for_text');
        expect(await evaluate('document.body.innerText.includes("Order shipped")')).toBe(true);

        const present = await act(driver, { action: 'wait_for_text', params: { text: 'Loading results', timeoutMs: 2000 } }, bounded);
        expect(present.error).toBeUndefined();
      } finally {
        await done();
      }
    });

    it('with gone: true, returns once the text was removed, or hidden', async () => {
      const { driver, evaluate } = await open('wait.html');
      try {
        expect(await evaluate('window.removeSpinner(700); document.body.innerText.includes("Loading results")')).toBe(true);
        const removed = await act(driver, { action: 'wait_for_text', params: { text: 'Loading results', gone: true } }, bounded);
        expect(removed.error).toBeUndefined();
        expect(await evaluate('document.getElementById("spinner")')).toBeNull();

        expect(await evaluate('window.hideBanner(700); document.body.innerText.includes("Saving draft")')).toBe(true);
        const hidden = await act(driver, { action: 'wait_for_text', params: { text: 'Saving draft', gone: true } }, bounded);
        expect(hidden.error).toBeUndefined();
        expect(await evaluate('document.getElementById("banner").style.display')).toBe('none');
      } finally {
        await done();
      }
    });

    it('reports text that never comes (or never goes) as a failed result, not a throw or a hang', async () => {
      const { driver } = await open('wait.html');
      try {
        const never = await act(driver, { action: 'wait_for_text', params: { text: 'Never shown', timeoutMs: 600 } }, bounded);
        expect(never.error).toContain('Never shown');
        const stays = await act(driver, { action: 'wait_for_text', params: { text: 'Saving draft', gone: true, timeoutMs: 600 } }, bounded);
        expect(stays.error).toContain('Saving draft');
      } finally {
        await done();
      }
    });

    it('refuses a text that is not a string and a negative timeout', async () => {
      const { driver } = await open('wait.html');
      try {
        const text = await rejectionOf<ConfigError>(act(driver, { action: 'wait_for_text', params: { text: 42 } }, bounded));
        expect(ConfigError.isInstance(text)).toBe(true);
        expect(text.field).toBe('params.text');
        const negative = await rejectionOf<ConfigError>(act(driver, { action: 'wait_for_text', params: { text: 'Orders', timeoutMs: -5 } }, bounded));
        expect(negative.field).toBe('params.timeoutMs');
      } finally {
        await done();
      }
    });
  });

  describe('in an Executor task', () => {
    it('the Navigator is offered the new actions, and hovers to reach a menu item it then clicks', async () => {
      const { driver, evaluate } = await open('hover.html');
      try {
        let navigatorCalls = 0;
        const llm = new ScriptedLLM({
          respond: (request) => {
            if (request.agent === 'planner') {
              return /Signed out/.test(request.lastUserText)
                ? scriptedPlan({ done: true, finalAnswer: 'Signed out' })
                : scriptedPlan({ nextSteps: 'Sign out' });
            }
            navigatorCalls += 1;
            const line = (label: string): number | undefined => {
              const found = request.lastUserText.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && item.includes(label));
              return found ? Number(/\[(\d+)\]/.exec(found)![1]) : undefined;
            };
            const signOut = line('Sign out');
            if (signOut !== undefined) return scriptedActions([{ click_element: { index: signOut } }]);
            if (navigatorCalls === 1) return scriptedActions([{ hover_element: { index: line('Account') } }]);
            return scriptedActions([{ done: { text: 'no menu', success: false } }]);
          },
        });
        const executor = new Executor({ task: 'Sign out of the shop', llm, browser: driver, sensitiveActions: false, planningInterval: 1, maxSteps: 5 });
        const ends: ExecutorEventMap['action-end'][] = [];
        executor.on('action-end', (event) => ends.push(event));
        const result = await executor.execute();

        expect(ends.map((event) => [event.action, event.error])).toEqual([
          ['hover_element', undefined],
          ['click_element', undefined],
        ]);
        expect(result.status).toBe('ok');
        expect(await evaluate('document.getElementById("status").textContent')).toBe('Signed out');
        const navigator = llm.requests.find((request) => request.agent === 'navigator')!;
        const prompt = navigator.messages.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n');
        for (const name of [
          'hover_element',
          'double_click_element',
          'right_click_element',
          'drag_and_drop',
          'click_coordinates',
          'reload_page',
          'handle_dialog',
          'wait_for_text',
        ]) {
          expect(prompt, name).toMatch(new RegExp(`^- ${name}: `, 'm'));
        }
      } finally {
        await done();
      }
    });
  });
});
