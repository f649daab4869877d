import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../errors';
import type { RunHistory, StepRecord } from '../history/types';
import { loadShopRun } from '../../test/fixtures/history/shop-run';
import { createRunReport } from './run-report';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-report-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The fixture run with hostile text where a page or a model could put it. */
function hostileRun(): RunHistory {
  const run = loadShopRun();
  const steps = run.steps.map((step): StepRecord => {
    if (step.actor !== 'navigator' || step.step !== 2) return step;
    const output = step.modelOutput as { current_state: Record<string, string> };
    return {
      ...step,
      browser: step.browser && { ...step.browser, title: '<script>alert("title")</script>' },
      modelOutput: { ...output, current_state: { ...output.current_state, memory: '"><img src=x onerror=alert(1)>' } },
      actions: step.actions.map((action) => ({ ...action, result: '</pre><iframe src="https://example.com">' })),
    };
  });
  return { ...run, tasks: run.tasks.map((task) => ({ ...task, finalAnswer: "<b onmouseover='x'>done</b>" })), steps };
}

describe('createRunReport', () => {
  it('writes a card per step, with the tasks, the answer and the total tokens and cost', async () => {
    const path = join(folder, 'nested', 'run.html');
    const result = await createRunReport(loadShopRun(), path);
    const html = await readFile(path, 'utf8');

    expect(result).toEqual({ path, steps: 6, bytes: Buffer.byteLength(html) });
    expect(html.match(/<article class="step/g)).toHaveLength(6);
    expect(html.match(/data-actor="navigator"/g)).toHaveLength(4);
    expect(html).toContain('<h1>Open the fixture shop and add the second item to the cart</h1>');
    expect(html).toContain('Item 2 is in the cart (1 item, $12.00).');
    // 10,715 tokens over the six steps; step 4's model has no price, so the total cost is unknown.
    expect(html).toContain('<p class="total">10,715 tokens (10,200 in, 515 out) · cost unknown</p>');
    // Each step's own tokens and cost.
    expect(html).toContain('2,195 tokens (2,100 in, 95 out) · $0.00099');
    // The Navigator's words, the Planner's plan, the action, its parameters, result and error.
    expect(html).toContain('<dt>Next goal</dt><dd>打开购物车，确认第二件商品已经加入</dd>');
    expect(html).toContain('<dt>Next steps</dt><dd>1. Open the shop. 2. Add the second item to the cart.</dd>');
    expect(html).toContain('<code class="name">click_element</code><pre class="params">{\n  &quot;index&quot;: 3\n}</pre>');
    expect(html).toContain('Element 9 is not on the page any more.');
    expect(html).toContain('<span class="url">http://127.0.0.1/shop</span>');
    // Three screenshots inline, nothing fetched.
    expect(html.match(/<img class="screenshot"[^>]* src="data:image\/jpeg;base64,\/9j\//g)).toHaveLength(3);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`);
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!127\.0\.0\.1)/);
    expect(await readdir(join(folder, 'nested'))).toEqual(['run.html']);
  });

  it('escapes every text from the page and the model: no markup comes out of them', async () => {
    const path = join(folder, 'hostile.html');
    await createRunReport(hostileRun(), path, { title: '<h1>x</h1>' });
    const html = await readFile(path, 'utf8');

    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<iframe');
    expect(html).not.toContain('<b onmouseover');
    expect(html).not.toContain('<h1>x</h1>');
    expect(html).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;b onmouseover=&#39;x&#39;&gt;done&lt;/b&gt;');
    // The only tags are the report's own.
    const tags = new Set([...html.matchAll(/<([a-z][a-z0-9]*)/g)].map((match) => match[1]));
    expect([...tags].sort()).toEqual(
      [
        'article',
        'body',
        'code',
        'dd',
        'dl',
        'dt',
        'h1',
        'h2',
        'head',
        'html',
        'img',
        'li',
        'main',
        'meta',
        'ol',
        'p',
        'pre',
        'span',
        'strong',
        'style',
        'title',
        'header',
      ].sort(),
    );
  });

  it('refuses a history that is not valid, naming the field, and writes nothing', async () => {
    const path = join(folder, 'invalid.html');
    const run = loadShopRun();
    const hostileStep: RunHistory = {
      ...run,
      steps: run.steps.map((step, index) => (index === 2 ? { ...step, step: '"><meta http-equiv=refresh content=0;url=//evil>' as unknown as number } : step)),
    };
    const error: unknown = await createRunReport(hostileStep, path).catch((caught: unknown) => caught);
    expect(HistoryFormatError.isInstance(error)).toBe(true);
    expect((error as HistoryFormatError).field).toBe('steps[2].step');
    const hostileMediaType: RunHistory = {
      ...run,
      steps: run.steps.map((step) =>
        step.screenshot ? { ...step, screenshot: { ...step.screenshot, mediaType: 'image/png" onload="x' as 'image/png' } } : step,
      ),
    };
    await expect(createRunReport(hostileMediaType, path)).rejects.toMatchObject({ name: 'HistoryFormatError', field: 'steps[1].screenshot.mediaType' });
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('does not write the report when cancelled', async () => {
    const path = join(folder, 'cancelled.html');
    await expect(createRunReport(loadShopRun(), path, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'RequestCancelledError' });
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  // Issue 24: the run's Playwright trace and videos beside the report are linked from it.
  it('links trace.zip and the .webm videos beside the report by relative, encoded paths, and nothing when there are none', async () => {
    const runFolder = join(folder, 'traced run');
    await mkdir(runFolder, { recursive: true });
    await writeFile(join(runFolder, 'trace.zip'), 'PK');
    await writeFile(join(runFolder, 'b tab.webm'), 'video');
    await writeFile(join(runFolder, 'a.webm'), 'video');
    const html = await readFile((await createRunReport(loadShopRun(), join(runFolder, 'report.html'))).path, 'utf8');
    const links = [...html.matchAll(/<a href="([^"]+)">/g)].map(([, href]) => href);
    expect(links).toEqual(['trace.zip', 'a.webm', 'b%20tab.webm']);
    expect(html).toContain('npx playwright show-trace');

    // Named by the options: a trace elsewhere, relative to the report; `trace: false` and no videos link nothing.
    const elsewhere = await readFile(
      (await createRunReport(loadShopRun(), join(folder, 'other', 'report.html'), { trace: join(runFolder, 'trace.zip') })).path,
      'utf8',
    );
    expect([...elsewhere.matchAll(/<a href="([^"]+)">/g)].map(([, href]) => href)).toEqual(['../traced%20run/trace.zip']);
    const none = await readFile((await createRunReport(loadShopRun(), join(runFolder, 'bare.html'), { trace: false, videos: [] })).path, 'utf8');
    expect(none).not.toContain('<a href=');
    const untraced = await readFile((await createRunReport(loadShopRun(), join(folder, 'plain', 'report.html'))).path, 'utf8');
    expect(untraced).not.toContain('trace.zip');
    expect(untraced).not.toContain('class="recordings"');
  });
});
