// The opt-in `evaluate` action (issue 24) in real headless Chromium, with PlaywrightDriver and
// PuppeteerDriver: off by default (act() rejects with a ConfigError naming `allowEvaluate`, the page
// untouched; an Executor does not offer it to the model and does not run it when the model asks
// anyway), and with `allowEvaluate: true` it runs the script in the page's main frame and returns its
// JSON result (objects, promises, page changes, a thrown error as a failed result, a huge result
// capped); a secret value the script returns never reaches the model or the events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors';
import { act, Executor, observe, type ActOptions, type ActResult, type ExecutorEventMap, type ExecutorOptions } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { rejectionOf } from '../helpers/rejection';
import { driverKinds, html, servePages, type PageServer, type TestTab } from '../helpers/actions-more-kit';

const PIN = 'Zx9-4471-secret';
const bounded = { timeout: 15_000 };
/** `allowEvaluate` is new in ActOptions; the cast lets this file typecheck before it exists. */
const allowed = { ...bounded, allowEvaluate: true } as ActOptions;

const listPage = html(
  'Evaluate page',
  `<h1>Fruit</h1><ul><li>Apple</li><li>Pear</li><li>Fig</li></ul><p id="out">original</p>
   <div id="acct" data-pin="${PIN}" hidden></div>
   <iframe srcdoc="<p id='inner'>framed</p>" style="width:200px;height:80px"></iframe>`,
);

let server: PageServer;

beforeAll(async () => {
  server = await servePages({ '/list.html': listPage });
});

afterAll(async () => {
  await server?.close();
});

function run(tab: TestTab, script: unknown, options: ActOptions = allowed): Promise<ActResult> {
  return act(tab.driver, { action: 'evaluate', params: { script } }, options);
}

/** The text of every message of the Navigator's request (its system prompt lists the actions), and its output schema. */
function offered(request: ScriptedRequest): { prompt: string; schema: string } {
  return { prompt: conversationText(request), schema: JSON.stringify(request.output?.schema ?? {}) };
}

describe.each(driverKinds())('$name', (kind) => {
  let tab: TestTab;

  beforeAll(async () => {
    await kind.start();
  }, 60_000);

  afterAll(async () => {
    await kind.stop();
  });

  async function open(): Promise<TestTab> {
    tab = await kind.tab();
    await tab.driver.goto(server.url('list.html'));
    return tab;
  }

  async function done(): Promise<void> {
    await tab?.close();
  }

  describe('act()', () => {
    it('rejects evaluate by default, and with allowEvaluate: false, with a ConfigError naming the option; the script does not run', async () => {
      await open();
      try {
        const byDefault = await rejectionOf<ConfigError>(run(tab, 'window.ran = 1', bounded));
        expect(ConfigError.isInstance(byDefault)).toBe(true);
        expect(byDefault.message).toContain('allowEvaluate');
        expect(byDefault.message).not.toMatch(/^Unknown action/);
        const off = await rejectionOf<ConfigError>(run(tab, 'window.ran = 1', { ...bounded, allowEvaluate: false }));
        expect(ConfigError.isInstance(off)).toBe(true);
        expect(off.message).toContain('allowEvaluate');
        expect(await tab.evaluate('typeof window.ran')).toBe('undefined');
      } finally {
        await done();
      }
    });

    it('with allowEvaluate: true, returns the JSON result of the script, from the main frame', async () => {
      await open();
      try {
        const scalar = await run(tab, 'document.title + ":" + document.querySelectorAll("li").length');
        expect(scalar.error).toBeUndefined();
        expect(scalar.action).toBe('evaluate');
        expect(scalar.extractedContent).toContain('"Evaluate page:3"');

        const object = await run(
          tab,
          '({ fruit: [...document.querySelectorAll("li")].map((item) => item.textContent), count: 3, inner: document.getElementById("inner") })',
        );
        expect(object.error).toBeUndefined();
        expect(object.extractedContent?.replace(/\s/g, '')).toContain('"fruit":["Apple","Pear","Fig"]');
        expect(object.extractedContent?.replace(/\s/g, '')).toContain('"count":3');
        // #inner is in the iframe, not in the main frame.
        expect(object.extractedContent?.replace(/\s/g, '')).not.toContain('framed');

        const awaited = await run(tab, 'new Promise((resolve) => setTimeout(() => resolve({ late: "yes" }), 50))');
        expect(awaited.error).toBeUndefined();
        expect(awaited.extractedContent?.replace(/\s/g, '')).toContain('"late":"yes"');
      } finally {
        await done();
      }
    });

    it('changes the page when the script does, reports a thrown error as a failed result, and caps a huge result', async () => {
      await open();
      try {
        const changed = await run(tab, 'document.getElementById("out").textContent = "changed by script"');
        expect(changed.error).toBeUndefined();
        expect(await tab.evaluate('document.getElementById("out").textContent')).toBe('changed by script');
        const state = await observe(tab.driver, bounded);
        expect(state.elementsText).toContain('changed by script');

        const thrown = await run(tab, '(() => { throw new Error("boom in page"); })()');
        expect(thrown.error).toContain('boom in page');

        const huge = await run(tab, '"x".repeat(300000)');
        expect(huge.error).toBeUndefined();
        expect(huge.extractedContent!.length).toBeGreaterThan(0);
        expect(huge.extractedContent!.length).toBeLessThan(300_000);
      } finally {
        await done();
      }
    });

    it('refuses a script that is not a string, before running anything', async () => {
      await open();
      try {
        const notText = await rejectionOf<ConfigError>(run(tab, 42));
        expect(ConfigError.isInstance(notText)).toBe(true);
        expect(notText.field).toBe('params.script');
        const missing = await rejectionOf<ConfigError>(act(tab.driver, { action: 'evaluate', params: {} }, allowed));
        expect(missing.field).toBe('params.script');
      } finally {
        await done();
      }
    });
  });

  describe('in an Executor task', () => {
    it('without allowEvaluate, evaluate is not offered to the model, and a model asking for it anyway runs nothing', async () => {
      await open();
      try {
        let calls = 0;
        const llm = new ScriptedLLM({
          respond: (request) => {
            if (request.agent === 'planner')
              return calls >= 1 ? scriptedPlan({ done: true, finalAnswer: 'done' }) : scriptedPlan({ nextSteps: 'Count the fruit' });
            calls += 1;
            return scriptedActions([{ evaluate: { script: 'window.ran = 1' } }]);
          },
        });
        const executor = new Executor({ task: 'Count the fruit', llm, browser: tab.driver, sensitiveActions: false, planningInterval: 1, maxSteps: 2 });
        const ends: ExecutorEventMap['action-end'][] = [];
        executor.on('action-end', (event) => ends.push(event));
        await executor.execute({ timeout: 30_000 }).catch(() => undefined);

        const navigator = llm.requests.find((request) => request.agent === 'navigator')!;
        const { prompt, schema } = offered(navigator);
        expect(prompt).toMatch(/^- click_element: /m);
        expect(prompt).not.toMatch(/^- evaluate: /m);
        expect(schema).toContain('click_element');
        expect(schema).not.toContain('"evaluate"');
        expect(ends.filter((event) => event.action === 'evaluate').every((event) => event.error !== undefined)).toBe(true);
        expect(await tab.evaluate('typeof window.ran')).toBe('undefined');
      } finally {
        await done();
      }
    }, 45_000);

    it('with allowEvaluate, the model gets the result, and a secret value in it is masked', async () => {
      await open();
      try {
        const navigator: ScriptedRequest[] = [];
        const llm = new ScriptedLLM({
          respond: (request) => {
            if (request.agent === 'planner') {
              return navigator.length >= 2 ? scriptedPlan({ done: true, finalAnswer: 'read' }) : scriptedPlan({ nextSteps: 'Read the fruit and the pin' });
            }
            navigator.push(request);
            if (navigator.length === 1) {
              return scriptedActions([
                { evaluate: { script: '[...document.querySelectorAll("li")].map((item) => item.textContent).join("+")' } },
                { evaluate: { script: '"pin=" + document.getElementById("acct").dataset.pin' } },
              ]);
            }
            return scriptedActions([{ done: { text: 'read it', success: true } }]);
          },
        });
        const options = {
          task: 'Read the fruit and the account pin',
          llm,
          browser: tab.driver,
          sensitiveActions: false,
          planningInterval: 1,
          maxSteps: 4,
          secrets: { pin: PIN },
          allowEvaluate: true,
        } as ExecutorOptions;
        const executor = new Executor(options);
        const ends: ExecutorEventMap['action-end'][] = [];
        executor.on('action-end', (event) => ends.push(event));
        await executor.execute({ timeout: 30_000 });

        const { prompt, schema } = offered(navigator[0]!);
        expect(prompt).toMatch(/^- evaluate: /m);
        expect(schema).toContain('evaluate');
        expect(ends.slice(0, 2).map((event) => [event.action, event.error])).toEqual([
          ['evaluate', undefined],
          ['evaluate', undefined],
        ]);
        expect(ends[0]!.result).toContain('Apple+Pear+Fig');
        expect(ends[1]!.result).toContain('pin=');
        expect(ends[1]!.result).not.toContain(PIN);
        const later = conversationText(navigator[1]!);
        expect(later).toContain('Apple+Pear+Fig');
        expect(later).toContain('<secret>pin</secret>');
        for (const request of llm.requests) expect(conversationText(request)).not.toContain(PIN);
      } finally {
        await done();
      }
    }, 45_000);
  });
});
