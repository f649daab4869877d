// exportPlaywrightScript on hand-built histories: the script parses, recorded text cannot escape
// its string literals or comments, each action kind has its code, locators come in their order.
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ConfigError, HistoryFormatError } from '../errors';
import type { ActionRecord, ElementFingerprint, RunHistory, StepBrowser, StepRecord, TaskRecord } from '../history/types';
import { emptyUsage } from '../llm/usage';
import { exportPlaywrightScript, type ExportPlaywrightOptions } from './export-playwright';

const shop = 'http://127.0.0.1:4000/';

function fingerprint(overrides: Partial<ElementFingerprint> = {}): ElementFingerprint {
  return {
    tagName: 'button',
    role: 'button',
    name: 'Add to cart',
    text: 'Add to cart',
    attributes: {},
    xpath: '/html/body/main/form/button',
    cssPath: 'main > form > button',
    ancestors: [],
    box: { x: 0, y: 0, width: 80, height: 20 },
    frameUrl: `${shop}product/blue-bowl`,
    ...overrides,
  };
}

function action(name: string, params: unknown, overrides: Partial<ActionRecord> = {}): ActionRecord {
  return {
    name,
    params,
    result: 'ok',
    error: undefined,
    includeInMemory: false,
    isDone: name === 'done',
    success: undefined,
    startedAt: 0,
    durationMs: 1,
    ...overrides,
  };
}

function browser(url: string, tabs: readonly string[] = ['tab-1'], active = tabs[0] ?? ''): StepBrowser {
  return { url, title: 'Page', tabs: tabs.length, tabList: tabs.map((id) => ({ id, url, title: 'Page' })), activeTabId: active };
}

let stepNumber = 0;
function step(url: string | StepBrowser | undefined, actions: readonly ActionRecord[], overrides: Partial<StepRecord> = {}): StepRecord {
  stepNumber++;
  return {
    taskId: 'task-1',
    taskIndex: 0,
    step: stepNumber,
    actor: 'navigator',
    startedAt: 0,
    endedAt: 0,
    durationMs: 0,
    browser: typeof url === 'string' ? browser(url) : url,
    modelOutput: {},
    plan: undefined,
    actions,
    error: undefined,
    usage: emptyUsage,
    modelCalls: [],
    ...overrides,
  };
}

function task(text: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return { taskId: 'task-1', task: text, startedAt: 0, endedAt: 1, status: 'ok', finalAnswer: undefined, ...overrides };
}

function history(steps: readonly StepRecord[], tasks: readonly TaskRecord[] = [task('Buy a bowl')]): RunHistory {
  return { schemaVersion: 2, tasks, steps, screenshots: new Map() };
}

/** The script's statements as written, one a line, comments and blank lines left out. */
function code(script: string): string[] {
  return script
    .replace(/\nfunction named\([\s\S]*?\n\}\n/, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'));
}

/** The one line of the script that holds `fragment`. */
function lineWith(script: string, fragment: string): string {
  const lines = script.split('\n').filter((line) => line.includes(fragment));
  expect(lines, `one line with ${fragment} in:\n${script}`).toHaveLength(1);
  return (lines[0] ?? '').trim();
}

/** Parses the script as TypeScript; fails on any syntax error. */
function parse(script: string): ts.SourceFile {
  const source = ts.createSourceFile('recorded.spec.ts', script, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const diagnostics = (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  expect(diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).toEqual([]);
  return source;
}

/** Every identifier and string literal value in the script's code (comments are not nodes). */
function tokens(source: ts.SourceFile): { identifiers: Set<string>; strings: string[] } {
  const identifiers = new Set<string>();
  const strings: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) identifiers.add(node.text);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.push(node.text);
    if (ts.isTemplateExpression(node)) strings.push(node.getText());
    node.forEachChild(visit);
  };
  visit(source);
  return { identifiers, strings };
}

function exported(steps: readonly StepRecord[], options?: ExportPlaywrightOptions, tasks?: readonly TaskRecord[]): string {
  const script = exportPlaywrightScript(history(steps, tasks), options);
  parse(script);
  return script;
}

describe('exportPlaywrightScript', () => {
  it('writes a Playwright Test file: the import, one test named after the task, the actions and the final answer', () => {
    const script = exported(
      [
        step('about:blank', [action('go_to_url', { url: shop })]),
        step(shop, [action('click_element', { index: 3 }, { fingerprint: fingerprint({ role: 'link', name: 'Kitchen', tagName: 'a', frameUrl: shop }) })]),
        step(`${shop}category/kitchen`, [action('done', { text: 'Bought it', success: true }, { success: true })]),
      ],
      undefined,
      [task('Buy a bowl', { finalAnswer: 'Blue bowl is in the cart.' })],
    );
    expect(code(script)).toEqual([
      "import { test, expect } from '@playwright/test';".replaceAll("'", '"'),
      'test("Buy a bowl", async ({ page }) => {',
      `await page.goto("${shop}");`,
      `await expect(page).toHaveURL("${shop}");`,
      'await page.getByRole("link", { name: named("Kitchen") }).click();',
      `await expect(page).toHaveURL("${shop}category/kitchen");`,
      '});',
    ]);
    expect(script).toContain('// done (success): Bought it');
    expect(script).toContain('// Final answer: Blue bowl is in the cart.');
  });

  it('escapes every recorded string: quotes, backslashes, backticks, ${}, line breaks and line separators', () => {
    const nasty = 'He said "hi" and \'bye\' \\ `tick` ${process.exit(1)}\nline two\u2028three\u2029four';
    const answer = 'Done.\nprocess.exit(2); // and\r\n/* not a comment */ */ `${boom()}`\u2028evil()';
    const field = fingerprint({ tagName: 'input', role: 'textbox', name: nasty, text: '', frameUrl: shop });
    const script = exportPlaywrightScript(
      history(
        [step(shop, [action('input_text', { index: 1, text: nasty }, { fingerprint: field }), action('done', { text: answer, success: true })])],
        [task(nasty, { finalAnswer: answer })],
      ),
    );
    const { identifiers, strings } = tokens(parse(script));
    // The recorded text is data: every copy of it is a whole string literal, and none of it ran into code.
    expect(strings.filter((text) => text === nasty)).toHaveLength(2); // the title and the text typed (the name is whitespace-collapsed)
    expect(strings.some((text) => text.includes('${'))).toBe(true);
    for (const name of ['exit', 'boom', 'evil']) expect(identifiers.has(name)).toBe(false);
    expect(script).not.toContain('\u2028');
    expect(script).not.toContain('\u2029');
    // The final answer's lines are each their own comment.
    expect(script).toContain('// Final answer: Done.\n  // process.exit(2); // and\n  // /* not a comment */ */ `${boom()}`\n  // evil()');
  });

  describe('locators, most robust first', () => {
    const locate = (overrides: Partial<ElementFingerprint>): string =>
      lineWith(exported([step(shop, [action('click_element', { index: 1 }, { fingerprint: fingerprint({ frameUrl: shop, ...overrides }) })])]), '.click()');

    it('role and accessible name, exact', () => {
      expect(locate({ attributes: { 'data-testid': 'add' } })).toBe('await page.getByRole("button", { name: named("Add to cart") }).click();');
    });

    it('a capped name (the recorder ends it with …) by its start, not exact', () => {
      expect(locate({ name: `${'Long '.repeat(40)}…` })).toBe(
        `await page.getByRole("button", { name: ${JSON.stringify('Long '.repeat(40).trim())} }).click();`,
      );
    });

    it('a test id when there is no role or name: data-testid by getByTestId, the others by attribute', () => {
      expect(locate({ role: undefined, attributes: { 'data-testid': 'add' } })).toBe('await page.getByTestId("add").click();');
      expect(locate({ name: '', attributes: { 'data-qa': 'say "add"' } })).toBe('await page.locator("[data-qa=\\"say \\\\\\"add\\\\\\"\\"]").click();');
    });

    it('a field by its label, then by its placeholder', () => {
      expect(locate({ tagName: 'input', role: undefined, name: 'Email', attributes: { placeholder: 'you@example.com' } })).toBe(
        'await page.getByLabel(named("Email")).click();',
      );
      expect(locate({ tagName: 'input', role: 'textbox', name: '', text: '', attributes: { placeholder: 'you@example.com' } })).toBe(
        'await page.getByPlaceholder(named("you@example.com")).click();',
      );
    });

    it('its text, then the recorded CSS path, then the XPath, then, with nothing else, the first of its tag', () => {
      expect(locate({ tagName: 'span', role: undefined, name: '', text: 'Add' })).toBe('await page.getByText(named("Add")).click();');
      expect(locate({ tagName: 'span', role: undefined, name: '', text: '' })).toBe('await page.locator("main > form > button").click();');
      expect(locate({ tagName: 'span', role: undefined, name: '', text: '', cssPath: '' })).toBe(
        'await page.locator("xpath=/html/body/main/form/button").click();',
      );
      const script = exported([
        step(shop, [
          action('click_element', { index: 1 }, { fingerprint: fingerprint({ role: 'generic', name: 'x', text: '', cssPath: '', xpath: '', frameUrl: shop }) }),
        ]),
      ]);
      expect(lineWith(script, '.click()')).toBe('await page.locator("button").first().click();');
      expect(script).toContain('// Nothing but its tag was recorded for this element: the first one is taken.');
    });

    it('scoped to its list item when the item names it apart (several "Add to cart"), not when its own name opens the item', () => {
      const card = { tagName: 'li', role: 'listitem', name: 'Blue mug Colour: Blue $14.00 Add to cart' };
      expect(locate({ ancestors: [{ tagName: 'form' }, card, { tagName: 'ul', role: 'list', name: 'Blue mug …' }] })).toBe(
        'await page.locator("li").filter({ hasText: "Blue mug Colour: Blue $14.00 Add to cart" }).getByRole("button", { name: named("Add to cart") }).click();',
      );
      expect(locate({ ancestors: [{ tagName: 'div', role: 'row', name: `Red mug ${'x'.repeat(90)}…` }] })).toBe(
        `await page.getByRole("row").filter({ hasText: ${JSON.stringify(`Red mug ${'x'.repeat(90)}`)} }).getByRole("button", { name: named("Add to cart") }).click();`,
      );
      // The product's own link is the item's title: no scope, so a new price does not break it.
      expect(locate({ tagName: 'a', role: 'link', name: 'Blue mug', ancestors: [{ ...card, name: 'Blue mug Colour: Blue $14.00' }] })).toBe(
        'await page.getByRole("link", { name: named("Blue mug") }).click();',
      );
      // Landmarks and forms do not scope: only repeated items do.
      expect(locate({ ancestors: [{ tagName: 'form', role: 'form', name: 'Buy' }] })).toBe(
        'await page.getByRole("button", { name: named("Add to cart") }).click();',
      );
      // A CSS path was unique in the page: never scoped.
      expect(locate({ role: undefined, name: '', text: '', ancestors: [card] })).toBe('await page.locator("main > form > button").click();');
    });

    it('inside the frame when the element was in another document than the page (best effort, commented)', () => {
      const script = exported([
        step(shop, [action('click_element', { index: 1 }, { fingerprint: fingerprint({ frameUrl: 'http://127.0.0.2:4001/pay/card.html?x=1' }) })]),
      ]);
      expect(lineWith(script, '.click()')).toBe(
        'await page.frameLocator("iframe[src*=\\"card.html\\"]").getByRole("button", { name: named("Add to cart") }).click();',
      );
      expect(script).toContain('// In the frame http://127.0.0.2:4001/pay/card.html?x=1 (best effort: the iframe is found by its src).');
    });

    it('by the recorded CSS selector when no fingerprint was recorded, and a comment when not even that', () => {
      const script = exported([
        step(shop, [
          action('click_element', { index: 4 }, { element: { index: 4, tagName: 'button', selector: '#buy' } }),
          action('click_element', { index: 5 }, { element: { index: 5, tagName: 'button' } }),
        ]),
      ]);
      expect(code(script)).toContain('await page.locator("#buy").click();');
      expect(script).toContain('// click_element on element 5: the run recorded nothing to find the element by, so this step is not in the script.');
    });
  });

  it('turns each action kind into its Playwright code', () => {
    const field = (tagName: string, role: string, name: string): ElementFingerprint => fingerprint({ tagName, role, name, text: '', frameUrl: shop });
    const script = exported([
      step(shop, [
        action('search', { query: 'blue bowl', engine: 'bing' }),
        action('go_to_url', { url: '127.0.0.1:4000/cart' }),
        action('go_back', {}),
        action('wait', { seconds: 2 }),
        action('input_text', { index: 1, text: '25' }, { fingerprint: field('input', 'spinbutton', 'Max price ($)') }),
        action('select_dropdown_option', { index: 2, text: 'Blue' }, { fingerprint: field('select', 'combobox', 'Colour') }),
        action('select_dropdown_option', { index: 2, text: ['Red', 'Green'] }, { fingerprint: field('select', 'listbox', 'Colours') }),
        action('select_dropdown_option', { index: 3, text: 'Large' }, { fingerprint: field('div', 'combobox', 'Size') }),
        action('send_keys', { keys: 'ctrl+a Delete Enter' }),
        action('send_keys', { keys: 'Hyper+q' }),
        action('upload_file', { index: 4, path: '/tmp/a.txt' }, { fingerprint: field('input', 'button', 'Photo') }),
        action('scroll_to_percent', { percent: 50 }),
        action('scroll_to_bottom', {}),
        action('next_page', {}),
        action('previous_page', { index: 6 }, { fingerprint: field('div', 'list', 'Results') }),
        action('scroll_to_text', { text: 'Delivery', nth: 2 }),
        action('extract_content', { goal: 'prices' }),
        action('cache_content', { content: 'Cheapest: Blue bowl' }),
        action('ask_human', { question: 'Which size?' }, { result: 'Large' }),
        action('my_custom_action', { sku: 1 }),
        action('done', { text: 'No luck', success: false }, { success: false }),
      ]),
    ]);
    expect(code(script).slice(2, -1)).toEqual([
      'await page.goto("https://www.bing.com/search?q=blue%20bowl");',
      'await page.goto("http://127.0.0.1:4000/cart");',
      'await page.goBack();',
      'await page.waitForTimeout(2000);',
      'await page.getByRole("spinbutton", { name: named("Max price ($)") }).fill("25");',
      'await page.getByRole("combobox", { name: named("Colour") }).selectOption({ label: "Blue" });',
      'await page.getByRole("listbox", { name: named("Colours") }).selectOption([{ label: "Red" }, { label: "Green" }]);',
      'await page.getByRole("combobox", { name: named("Size") }).click();',
      'await page.getByRole("option", { name: named("Large") }).click();',
      'await page.keyboard.press("Control+a");',
      'await page.keyboard.press("Delete");',
      'await page.keyboard.press("Enter");',
      'await page.getByRole("button", { name: named("Photo") }).setInputFiles("/tmp/a.txt");',
      'await page.evaluate((percent) => window.scrollTo(0, ((document.documentElement.scrollHeight - window.innerHeight) * percent) / 100), 50);',
      'await page.evaluate((percent) => window.scrollTo(0, ((document.documentElement.scrollHeight - window.innerHeight) * percent) / 100), 100);',
      'await page.mouse.wheel(0, (page.viewportSize()?.height ?? 720));',
      'await page.getByRole("list", { name: named("Results") }).hover();',
      'await page.mouse.wheel(0, -(page.viewportSize()?.height ?? 720));',
      'await page.getByText("Delivery").nth(1).scrollIntoViewIfNeeded();',
    ]);
    expect(script).toContain('// send_keys Hyper+q: keys this export does not know.');
    expect(script).toContain('// extract_content {"goal":"prices"}: reads the page, nothing to replay.');
    expect(script).toContain('// cache_content {"content":"Cheapest: Blue bowl"}: reads the page, nothing to replay.');
    expect(script).toContain('// ask_human: Which size?\n  //   answered: Large');
    expect(script).toContain('// my_custom_action {"sku":1}: an action Playwright has no counterpart for; not in the script.');
    expect(script).toContain('// done (failure): No luck');
  });

  it('turns the pointer, wait, reload and PDF actions into their Playwright code, and says why a drag or a dialog answer is left out', () => {
    const button = fingerprint({ tagName: 'button', role: 'button', name: 'Menu', text: 'Menu', frameUrl: shop });
    const script = exported([
      step(shop, [
        action('hover_element', { index: 1 }, { fingerprint: button }),
        action('double_click_element', { index: 1 }, { fingerprint: button }),
        action('right_click_element', { index: 1 }, { fingerprint: button }),
        action('click_coordinates', { x: 120.5, y: 48 }),
        action('reload_page', {}),
        action('wait_for_text', { text: 'Order "placed"' }),
        action('wait_for_text', { text: 'Loading', gone: true, timeoutMs: 4000 }),
        action('save_pdf', { filename: 'receipt.pdf' }),
        action('save_pdf', {}),
        action('drag_and_drop', { index: 1, targetIndex: 2 }, { fingerprint: button }),
        action('handle_dialog', { accept: true, text: 'yes' }),
      ]),
    ]);
    expect(code(script).slice(2, -1)).toEqual([
      'await page.getByRole("button", { name: named("Menu") }).hover();',
      'await page.getByRole("button", { name: named("Menu") }).dblclick();',
      'await page.getByRole("button", { name: named("Menu") }).click({ button: "right" });',
      'await page.mouse.click(120.5, 48);',
      'await page.reload();',
      'await expect(page.getByText("Order \\"placed\\"").first()).toBeVisible();',
      'await expect(page.getByText("Loading")).toHaveCount(0, { timeout: 4000 });',
      'await page.pdf({ path: "receipt.pdf" });',
      'await page.pdf({ path: "page.pdf" });',
    ]);
    expect(script).toContain('// drag_and_drop {"index":1,"targetIndex":2}: the run recorded nothing to find the drop target by; not in the script.');
    expect(script).toContain(
      '// handle_dialog {"accept":true,"text":"yes"}: Playwright dismisses a dialog unless a handler is set before the action that opens it; to answer it, add `page.once(\'dialog\', (dialog) => dialog.accept())` above that action.',
    );
  });

  it('leaves failed actions out, with a comment that says why', () => {
    const error = { name: 'ActionError', code: 'ACTION_ERROR', message: 'Element 9 is gone', retryable: true };
    const script = exported([
      step(shop, [action('click_element', { index: 9 }, { error, fingerprint: fingerprint({ frameUrl: shop }) }), action('go_back', {})]),
    ]);
    expect(code(script).slice(2, -1)).toEqual(['await page.goBack();']);
    expect(script).toContain('// Left out: click_element {"index":9} failed when recorded: Element 9 is gone');
  });

  it('expects the URL the next step saw after an action that moved the browser, and not after one that did not', () => {
    const button = fingerprint({ frameUrl: `${shop}category/kitchen` });
    const script = exported([
      step(`${shop}category/kitchen`, [action('click_element', { index: 1 }, { fingerprint: button })]),
      step(undefined, [], { actor: 'planner' }),
      step(`${shop}category/kitchen`, [action('click_element', { index: 1 }, { fingerprint: button })]),
      step(`${shop}cart?from="x"`, [action('go_to_url', { url: `${shop}cart?from="x"` })]),
      step(`${shop}cart?from="x"`, [action('done', { text: 'ok' })]),
    ]);
    expect(code(script).slice(2, -1)).toEqual([
      'await page.getByRole("button", { name: named("Add to cart") }).click();',
      'await page.getByRole("button", { name: named("Add to cart") }).click();',
      `await expect(page).toHaveURL("${shop}cart?from=\\"x\\"");`,
      `await page.goto("${shop}cart?from=%22x%22");`, // as the go_to_url action completes a URL
      `await expect(page).toHaveURL("${shop}cart?from=\\"x\\"");`,
    ]);
  });

  it('follows tabs through the context: open_tab, switch_tab and close_tab', () => {
    const tabs = ['tab-1', 'tab-2'];
    const script = exported([
      step(browser(shop), [action('open_tab', { url: `${shop}cart` })]),
      step(browser(`${shop}cart`, tabs, 'tab-2'), [action('switch_tab', { tab_id: 1 })]),
      step(browser(shop, tabs, 'tab-1'), [action('close_tab', { tab_id: 'tab-2' })]),
      step(browser(shop), [action('switch_tab', { tab_id: 'tab-7' })]),
      step(browser(shop), []),
    ]);
    expect(code(script).slice(1, -1)).toEqual([
      'test("Buy a bowl", async ({ page: firstPage, context }) => {',
      'let page = firstPage;',
      'page = await context.newPage();',
      `await page.goto("${shop}cart");`,
      `await expect(page).toHaveURL("${shop}cart");`,
      'page = context.pages()[0];',
      'await page.bringToFront();',
      `await expect(page).toHaveURL("${shop}");`,
      'await context.pages()[1].close();',
      'page = context.pages()[0];',
      `await expect(page).toHaveURL("${shop}");`,
      `await expect(page).toHaveURL("${shop}");`,
    ]);
    expect(script).toContain('// switch_tab tab-7: the recording does not say which of the open tabs that was, so this step is not in the script.');
  });

  it('runs the tasks of a session in order, each a test.step, in one test', () => {
    const second = step(shop, [action('go_back', {})], { taskId: 'task-2', taskIndex: 1 });
    const script = exported([step(shop, [action('go_to_url', { url: shop })]), second], undefined, [
      task('First', { finalAnswer: 'one' }),
      task('Second', {
        taskId: 'task-2',
        status: 'failed',
        error: { name: 'MaxStepsReachedError', code: 'MAX_STEPS_REACHED', message: 'Out of steps', retryable: false },
      }),
    ]);
    expect(code(script).filter((line) => line.startsWith('test(') || line.startsWith('await test.step('))).toEqual([
      'test("First", async ({ page }) => {',
      'await test.step("First", async () => {',
      'await test.step("Second", async () => {',
    ]);
    expect(script).toContain('// Final answer: one');
    expect(script).toContain('// The task ended failed: Out of steps.');
  });

  describe('options', () => {
    const steps = (): StepRecord[] => [
      step('about:blank', [action('go_to_url', { url: `${shop}login` })]),
      step(`${shop}login`, [
        action(
          'input_text',
          { index: 1, text: 'ada@example.com' },
          { fingerprint: fingerprint({ tagName: 'input', role: 'textbox', name: 'Email', frameUrl: `${shop}login` }) },
        ),
        action(
          'input_text',
          { index: 2, text: 'Dear ada@example.com, my pin is 1234' },
          { fingerprint: fingerprint({ role: 'textbox', name: 'Note', frameUrl: `${shop}login` }) },
        ),
      ]),
    ];

    it('importFrom, testName and timeoutMs', () => {
      const script = exported(steps(), { importFrom: 'playwright/test', testName: 'logs "in"', timeoutMs: 45_000 });
      expect(code(script).slice(0, 3)).toEqual([
        'import { test, expect } from "playwright/test";',
        'test("logs \\"in\\"", async ({ page }) => {',
        'test.setTimeout(45000);',
      ]);
    });

    it('env: the recorded values are read from the environment and never written into the script', () => {
      const script = exported(steps(), { env: { SHOP_EMAIL: 'ada@example.com', PIN: '1234' } });
      expect(script).not.toContain('ada@example.com');
      expect(script).not.toContain('1234');
      expect(lineWith(script, 'named("Email")')).toBe('await page.getByRole("textbox", { name: named("Email") }).fill(variable("SHOP_EMAIL"));');
      expect(lineWith(script, 'named("Note")')).toBe(
        'await page.getByRole("textbox", { name: named("Note") }).fill("Dear " + variable("SHOP_EMAIL") + ", my pin is " + variable("PIN"));',
      );
      expect(script).toContain('function variable(name: string): string {');
      // The helper throws, naming the variable, when it is not set.
      const helper = /function variable[\s\S]*?\n\}/.exec(script)?.[0] ?? '';
      const body = ts.transpileModule(helper, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
      const variable = runInNewContext(`${body}; variable`, { process: { env: { SHOP_EMAIL: 'grace@example.com' } } }) as (name: string) => string;
      expect(variable('SHOP_EMAIL')).toBe('grace@example.com');
      expect(() => variable('PIN')).toThrow('Set the environment variable PIN: the recorded run typed it.');
      expect(exported(steps())).not.toContain('function variable');
    });

    it('env: the value is in no string and no comment of the script, raw or URL-encoded, and every string still reads as recorded', () => {
      const secret = 's3cr3t pa$$!';
      const uri = encodeURIComponent(secret); // s3cr3t%20pa%24%24!
      const form = new URLSearchParams([['', secret]]).toString().slice(1); // s3cr3t+pa%24%24%21
      const login = `${shop}login`;
      const error = { name: 'ActionError', code: 'ACTION_ERROR', message: `Wrong password ${secret}`, retryable: true };
      const [welcome, search, raw] = [`${shop}welcome?pw=${uri}`, `${shop}search?q=${form}`, `${shop}raw?pw=${secret}`] as const;
      const script = exported(
        [
          step(login, [
            action(
              'input_text',
              { index: 1, text: secret },
              { fingerprint: fingerprint({ tagName: 'input', role: 'textbox', name: 'Password', frameUrl: login }) },
            ),
            action('click_element', { index: 2, note: secret }, { error, fingerprint: fingerprint({ frameUrl: login }) }),
          ]),
          step(welcome, [action('click_element', { index: 3 }, { fingerprint: fingerprint({ role: 'link', name: `Welcome ${secret}`, frameUrl: welcome }) })]),
          step(search, [action('click_element', { index: 4 }, { fingerprint: fingerprint({ frameUrl: search }) })]),
          step(raw, [action('go_to_url', { url: `${shop}account?pw=${secret}` })]), // the URL parser encodes its space
          step(`${shop}account?pw=${uri}`, [action('done', { text: `Logged in with ${secret}`, success: true }, { success: true })]),
        ],
        { env: { PASSWORD: secret } },
        [task(`Log in with ${secret}`, { finalAnswer: `The password ${secret} works` })],
      );
      for (const text of [secret, uri, form, encodeURI(secret), 's3cr3t']) expect(script).not.toContain(text);
      // The title and every comment show the variable's name instead.
      expect(code(script)).toContain('test("Log in with <$PASSWORD>", async ({ page }) => {');
      expect(script).toContain('// Left out: click_element {"index":2,"note":"<$PASSWORD>"} failed when recorded: Wrong password <$PASSWORD>');
      expect(script).toContain('// done (success): Logged in with <$PASSWORD>');
      expect(script).toContain('// Final answer: The password <$PASSWORD> works');
      // It still types it, and each string reads, with the variable set, as the recording had it.
      expect(lineWith(script, '.fill(')).toBe('await page.getByRole("textbox", { name: named("Password") }).fill(variable("PASSWORD"));');
      const helpers = /\nfunction variable[\s\S]*?\n\}\n(?:[\s\S]*?\nfunction formEncoded[\s\S]*?\n\}\n)?/.exec(script)?.[0] ?? '';
      const compiled = ts.transpileModule(helpers, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
      const evaluate = (expression: string): unknown =>
        runInNewContext(`${compiled}; (${expression})`, { process: { env: { PASSWORD: secret } }, URLSearchParams });
      const argument = (fragment: string, pattern: RegExp): unknown => evaluate(pattern.exec(lineWith(script, fragment))?.[1] ?? 'undefined');
      expect(argument('named("Welcome', /name: named\((.*)\) \}/)).toBe(`Welcome ${secret}`);
      expect(argument('welcome?pw=', /toHaveURL\((.*)\);$/)).toBe(welcome);
      expect(argument('search?q=', /toHaveURL\((.*)\);$/)).toBe(search);
      expect(argument('raw?pw=', /toHaveURL\((.*)\);$/)).toBe(raw);
      expect(argument('page.goto(', /goto\((.*)\);$/)).toBe(`${shop}account?pw=${encodeURI(secret)}`);
      // A value no URL can hold encoded (a lone surrogate) is kept out as typed, without an error.
      expect(exported(steps(), { env: { LONE: '\ud800' } })).toContain('test("Buy a bowl"');
    });

    it('baseURL: URLs under it are written as paths for the config to complete', () => {
      const script = exported(steps(), { baseURL: shop });
      expect(code(script)).toEqual(expect.arrayContaining(['await page.goto("/login");', 'await expect(page).toHaveURL("/login");']));
      expect(script).toContain(`// Pages under ${shop} are written as paths: set \`use.baseURL\` in the Playwright config.`);
      const under = exported(
        [step('about:blank', [action('go_to_url', { url: 'https://example.com/app/cart' }), action('go_to_url', { url: 'https://other.example/' })])],
        {
          baseURL: 'https://example.com/app/',
        },
      );
      expect(code(under)).toEqual(expect.arrayContaining(['await page.goto("./cart");', 'await page.goto("https://other.example/");']));
    });

    it('refuses invalid options with a ConfigError naming the option', () => {
      const attempt = (options: unknown): unknown => exportPlaywrightScript(history(steps()), options as ExportPlaywrightOptions);
      expect(() => attempt({ timeoutMs: 0 })).toThrow(ConfigError);
      expect(() => attempt({ timeoutMs: 0 })).toThrow('Option `timeoutMs` of exportPlaywrightScript() must be a positive number of milliseconds.');
      expect(() => attempt({ env: { 'not a name': 'x' } })).toThrow(/Option `env.not a name` .* environment variable names/);
      expect(() => attempt({ baseURL: 'ftp://x/' })).toThrow('Option `baseURL` of exportPlaywrightScript() must be an absolute http or https URL.');
      expect(() => attempt({ importfrom: 'x' })).toThrow('Unknown option `importfrom` of exportPlaywrightScript(). Check its spelling.');
    });
  });

  it('refuses a history that is not of version 2', () => {
    const old = { version: 1, tasks: [], steps: [] } as unknown as RunHistory;
    expect(() => exportPlaywrightScript(old)).toThrow(HistoryFormatError);
    expect(() => exportPlaywrightScript(old)).toThrow(/takes a version 2 history/);
  });
});

describe('exportPlaywrightScript matches names with the replay\u2019s tolerance', () => {
  it('writes names as named(): whole, any case, any spaces, and nothing more', () => {
    const script = exportPlaywrightScript(
      history([step(`${shop}product/blue-bowl`, [action('click_element', { index: 1 }, { fingerprint: fingerprint({ name: 'Add to  cart' }) })])]),
    );
    expect(script).toContain('getByRole("button", { name: named("Add to cart") })');
    const helper = /\nfunction named[\s\S]*?\n\}\n/.exec(script)?.[0] ?? '';
    const compiled = ts.transpileModule(helper, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
    const named = runInNewContext(`${compiled}; named`) as (text: string) => RegExp;
    const pattern = named('Add to cart');
    expect(['Add to cart', 'ADD TO CART', '  add to\n cart '].map((text) => pattern.test(text))).toEqual([true, true, true]);
    expect(['Add to cart now', 'Add to car', 'Add.to cart'].map((text) => pattern.test(text))).toEqual([false, false, false]);
    expect(named('Price ($)').test('price ($)')).toBe(true);
  });

  it('scopes a card\u2019s button by the name of its record, not the card\u2019s whole text', () => {
    const script = exportPlaywrightScript(
      history([
        step(`${shop}product/blue-bowl`, [
          action(
            'click_element',
            { index: 1 },
            {
              fingerprint: fingerprint({
                name: 'Add to cart',
                ancestors: [{ tagName: 'form' }, { tagName: 'li', role: 'listitem', name: 'Blue teapot $12.00 Add to cart' }],
                record: { name: 'Blue teapot', from: 'heading', scope: 'item' },
              }),
            },
          ),
        ]),
      ]),
    );
    expect(script).toContain('page.locator("li").filter({ hasText: "Blue teapot" }).getByRole("button", { name: named("Add to cart") })');
  });
});
