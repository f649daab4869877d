// JavaScript dialogs (issue 24) in real headless Chromium, with PlaywrightDriver and PuppeteerDriver,
// through the public observe()/act(): alert, confirm (accepted and dismissed), prompt (answered with
// text, dismissed), beforeunload (leave or stay); the open dialog is in `state.dialog` and reading the
// state while it is open does not hang; handle_dialog says what the dialog said and what was answered;
// bad parameters and no dialog at all; and Executor tasks: one answers a confirm it sees in the state,
// one leaves a dialog unanswered and still ends (the dialog dismissed after the action timeout and
// reported to the model).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TimeoutError } from '../../src/errors';
import { act, Executor, observe, type ActResult } from '../../src/index';
import type { BrowserDriver } from '../../src/browser/types';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { rejectionOf } from '../helpers/rejection';
import {
  dialogOf,
  driverKinds,
  html,
  indexOf,
  pollUntil,
  servePages,
  within,
  type OpenDialog,
  type PageServer,
  type TestTab,
} from '../helpers/actions-more-kit';

const bounded = { timeout: 15_000 };

const dialogsPage = html(
  'Dialogs',
  `<h1>Items</h1>
   <button id="alert">Save item</button>
   <button id="confirm">Delete item</button>
   <button id="prompt">Rename item</button>
   <button id="refresh">Refresh list</button>
   <p id="out">Nothing yet</p>`,
  `const out = document.getElementById('out');
   document.getElementById('alert').addEventListener('click', () => { alert('Saved!'); out.textContent = 'alert:done'; });
   document.getElementById('confirm').addEventListener('click', () => { out.textContent = 'confirm:' + confirm('Delete item 7?'); });
   document.getElementById('prompt').addEventListener('click', () => { out.textContent = 'prompt:' + prompt('New name?', 'Untitled'); });
   document.getElementById('refresh').addEventListener('click', () => { window.refreshed = (window.refreshed || 0) + 1; });`,
);

const editorPage = html(
  'Editor',
  `<h1>Draft</h1><input id="note" aria-label="Note"><a href="/elsewhere.html">Leave editor</a>`,
  `window.addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'You have unsaved changes'; });`,
);

let server: PageServer;

beforeAll(async () => {
  server = await servePages({ '/dialogs.html': dialogsPage, '/editor.html': editorPage, '/elsewhere.html': html('Elsewhere', '<p>Left the editor</p>') });
});

afterAll(async () => {
  await server?.close();
});

/** Clicks the element labelled `label`; the click must return although it opened a dialog. */
async function clickOpening(driver: BrowserDriver, label: string): Promise<void> {
  const state = await within(observe(driver, bounded), 20_000, 'observe()');
  await within(
    act(driver, { action: 'click_element', params: { index: indexOf(state, label) }, state }, bounded),
    20_000,
    `clicking "${label}", which opens a dialog`,
  );
}

/** Reads the state until it shows a dialog (bounded); observe() must not hang while the dialog is open. */
async function openDialog(driver: BrowserDriver): Promise<OpenDialog | undefined> {
  const state = await pollUntil(
    () => within(observe(driver, { timeout: 10_000 }), 15_000, 'observe() while a dialog is open'),
    (value) => dialogOf(value) !== undefined,
    5000,
  );
  return dialogOf(state);
}

function answer(driver: BrowserDriver, params: Record<string, unknown>): Promise<ActResult> {
  return within(act(driver, { action: 'handle_dialog', params }, bounded), 20_000, 'handle_dialog');
}

describe.each(driverKinds())('$name', (kind) => {
  let tab: TestTab;

  beforeAll(async () => {
    await kind.start();
  }, 60_000);

  afterAll(async () => {
    await kind.stop();
  });

  async function open(path: string): Promise<TestTab> {
    tab = await kind.tab();
    await tab.driver.goto(server.url(path));
    return tab;
  }

  /** What the page wrote in #out, once no dialog blocks it (bounded). */
  function outText(expected: string): Promise<string> {
    return pollUntil(
      () => within(tab.evaluate<string>('document.getElementById("out").textContent'), 5000, 'reading the page'),
      (value) => value === expected,
    );
  }

  async function done(): Promise<void> {
    await tab?.close();
  }

  it('an alert: the state shows it, accepting it lets the page go on, and the dialog is gone', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await clickOpening(driver, 'Save item');
      expect(await openDialog(driver)).toMatchObject({ type: 'alert', message: 'Saved!' });
      const result = await answer(driver, { accept: true });
      expect(result.error).toBeUndefined();
      expect(result.action).toBe('handle_dialog');
      expect(result.extractedContent).toContain('Saved!');
      expect(await outText('alert:done')).toBe('alert:done');
      expect(dialogOf(await observe(driver, bounded))).toBeUndefined();
    } finally {
      await done();
    }
  });

  it('a confirm accepted: the page gets true, and the result quotes the question', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await clickOpening(driver, 'Delete item');
      expect(await openDialog(driver)).toMatchObject({ type: 'confirm', message: 'Delete item 7?' });
      const result = await answer(driver, { accept: true });
      expect(result.error).toBeUndefined();
      expect(result.extractedContent).toContain('Delete item 7?');
      expect(await outText('confirm:true')).toBe('confirm:true');
    } finally {
      await done();
    }
  });

  it('a confirm dismissed: the page gets false', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await clickOpening(driver, 'Delete item');
      expect((await openDialog(driver))?.type).toBe('confirm');
      const result = await answer(driver, { accept: false });
      expect(result.error).toBeUndefined();
      expect(await outText('confirm:false')).toBe('confirm:false');
      expect(dialogOf(await observe(driver, bounded))).toBeUndefined();
    } finally {
      await done();
    }
  });

  it('a prompt answered with text: the state shows its default, the page gets the text', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await clickOpening(driver, 'Rename item');
      expect(await openDialog(driver)).toEqual({ type: 'prompt', message: 'New name?', defaultValue: 'Untitled' });
      const result = await answer(driver, { accept: true, text: 'Quarterly report' });
      expect(result.error).toBeUndefined();
      expect(result.extractedContent).toContain('New name?');
      expect(result.extractedContent).toContain('Quarterly report');
      expect(await outText('prompt:Quarterly report')).toBe('prompt:Quarterly report');
    } finally {
      await done();
    }
  });

  it('a prompt dismissed: the page gets null', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await clickOpening(driver, 'Rename item');
      expect((await openDialog(driver))?.type).toBe('prompt');
      await answer(driver, { accept: false });
      expect(await outText('prompt:null')).toBe('prompt:null');
    } finally {
      await done();
    }
  });

  it('a dialog a timer opened, with no action running, is in the state and can be answered', async () => {
    const { driver } = await open('dialogs.html');
    try {
      await tab.evaluate('setTimeout(() => { document.getElementById("out").textContent = "timer:" + confirm("Keep the session?"); }, 50); 0');
      expect(await openDialog(driver)).toMatchObject({ type: 'confirm', message: 'Keep the session?' });
      await answer(driver, { accept: true });
      expect(await outText('timer:true')).toBe('timer:true');
    } finally {
      await done();
    }
  });

  it('beforeunload: staying keeps the page, leaving loads the link', async () => {
    const { driver, evaluate } = await open('editor.html');
    try {
      // A page only gets to ask once the user has interacted with it.
      const first = await observe(driver, bounded);
      await act(driver, { action: 'input_text', params: { index: indexOf(first, 'Note'), text: 'half-written' }, state: first }, bounded);

      await clickOpening(driver, 'Leave editor');
      expect((await openDialog(driver))?.type).toBe('beforeunload');
      const stay = await answer(driver, { accept: false });
      expect(stay.error).toBeUndefined();
      expect(await driver.currentUrl()).toBe(server.url('editor.html'));
      expect(await within(evaluate('document.getElementById("note").value'), 5000, 'reading the page')).toBe('half-written');

      await clickOpening(driver, 'Leave editor');
      expect((await openDialog(driver))?.type).toBe('beforeunload');
      const leave = await answer(driver, { accept: true });
      expect(leave.error).toBeUndefined();
      expect(
        await pollUntil(
          () => driver.currentUrl(),
          (url) => url === server.url('elsewhere.html'),
        ),
      ).toBe(server.url('elsewhere.html'));
    } finally {
      await done();
    }
  });

  it('handle_dialog with no dialog open does not succeed, and its parameters are checked', async () => {
    const { driver } = await open('dialogs.html');
    try {
      const outcome = await act(driver, { action: 'handle_dialog', params: { accept: true } }, bounded).then(
        (result) => result.error,
        (error: unknown) => (ConfigError.isInstance(error) ? error.message : `unexpected ${String(error)}`),
      );
      expect(outcome).toEqual(expect.any(String));
      expect(outcome).not.toMatch(/^unexpected|Unknown action/);

      const notBoolean = await rejectionOf<ConfigError>(act(driver, { action: 'handle_dialog', params: { accept: 'yes' } }, bounded));
      expect(ConfigError.isInstance(notBoolean)).toBe(true);
      expect(notBoolean.field).toBe('params.accept');
      const missing = await rejectionOf<ConfigError>(act(driver, { action: 'handle_dialog', params: {} }, bounded));
      expect(missing.field).toBe('params.accept');
      const notText = await rejectionOf<ConfigError>(act(driver, { action: 'handle_dialog', params: { accept: true, text: 5 } }, bounded));
      expect(notText.field).toBe('params.text');
      expect(await outText('Nothing yet')).toBe('Nothing yet');
    } finally {
      await done();
    }
  });

  describe('in an Executor task', () => {
    /** The index on the element line of the state text containing `label`. */
    const indexIn = (request: ScriptedRequest, label: string): number | undefined => {
      const line = request.lastUserText.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && item.includes(label));
      return line ? Number(/\[(\d+)\]/.exec(line)![1]) : undefined;
    };

    it('the model sees the confirm in the state and accepts it', async () => {
      const { driver } = await open('dialogs.html');
      try {
        const navigator: ScriptedRequest[] = [];
        const llm = new ScriptedLLM({
          respond: (request) => {
            if (request.agent === 'planner') {
              return /confirm:true/.test(request.lastUserText)
                ? scriptedPlan({ done: true, finalAnswer: 'Deleted' })
                : scriptedPlan({ nextSteps: 'Delete item 7' });
            }
            navigator.push(request);
            if (navigator.length === 1) return scriptedActions([{ click_element: { index: indexIn(request, 'Delete item') } }]);
            if (navigator.length === 2 && request.lastUserText.includes('Delete item 7?')) return scriptedActions([{ handle_dialog: { accept: true } }]);
            return scriptedActions([{ done: { text: 'stuck', success: false } }]);
          },
        });
        const executor = new Executor({ task: 'Delete item 7', llm, browser: driver, sensitiveActions: false, planningInterval: 1, maxSteps: 5 });
        const actions: [string, unknown][] = [];
        executor.on('action-end', (event) => actions.push([event.action, event.error]));
        const result = await executor.execute({ timeout: 45_000 });

        expect(actions.slice(0, 2)).toEqual([
          ['click_element', undefined],
          ['handle_dialog', undefined],
        ]);
        expect(navigator[1]?.lastUserText).toContain('Delete item 7?');
        expect(result.status).toBe('ok');
        expect(await outText('confirm:true')).toBe('confirm:true');
      } finally {
        await done();
      }
    }, 60_000);

    it('a dialog nobody answers is dismissed after the action timeout and reported: the loop ends', async () => {
      const { driver } = await open('dialogs.html');
      try {
        const navigator: ScriptedRequest[] = [];
        const llm = new ScriptedLLM({
          respond: (request) => {
            if (request.agent === 'planner') {
              return navigator.length >= 3 ? scriptedPlan({ done: true, finalAnswer: 'gave up' }) : scriptedPlan({ nextSteps: 'Delete, then refresh' });
            }
            navigator.push(request);
            if (navigator.length === 1) return scriptedActions([{ click_element: { index: indexIn(request, 'Delete item') } }]);
            const refresh = indexIn(request, 'Refresh list');
            if (navigator.length === 2 && refresh !== undefined) return scriptedActions([{ click_element: { index: refresh } }]);
            return scriptedActions([{ done: { text: 'finished', success: true } }]);
          },
        });
        const executor = new Executor({
          task: 'Delete item 7 and refresh the list',
          llm,
          browser: driver,
          sensitiveActions: false,
          planningInterval: 1,
          maxSteps: 4,
          browserTimeouts: { action: 3000 },
        });
        const outcome = await within(
          executor.execute({ timeout: 45_000 }).catch((error: unknown) => error),
          50_000,
          'a task with an unanswered dialog',
        );
        expect(TimeoutError.isInstance(outcome)).toBe(false);
        // Dismissed: the page's confirm() returned false.
        expect(await outText('confirm:false')).toBe('confirm:false');
        // Reported: a later request of the model quotes what the dialog said.
        expect(llm.requests.slice(1).some((request) => conversationText(request).includes('Delete item 7?'))).toBe(true);
      } finally {
        await done();
      }
    }, 60_000);
  });
});
