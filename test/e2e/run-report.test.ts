// createRunReport's page in real headless Chromium: it loads from its file alone (no request of any
// kind), shows every step card, decodes its inline screenshots and renders something to see.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/chromium/find-chromium';
import type { StepRecord } from '../../src/history/types';
import { createRunReport } from '../../src/node/run-report';
import { loadShopRun } from '../fixtures/history/shop-run';

let browser: Browser;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-report-e2e-'));
  // A non-persistent launch starts from a fresh temporary profile.
  browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the run report in Chromium', () => {
  it('makes no request but for its own file, shows every step and decodes its screenshots', async () => {
    const run = loadShopRun();
    // Hostile text where a page or a model could put it: as markup, each would fetch or run something.
    const steps = run.steps.map((step): StepRecord =>
      step.actor === 'navigator' && step.step === 2 && step.browser
        ? { ...step, browser: { ...step.browser, title: '<script>fetch("http://127.0.0.1:9/script")</script>"><img src="http://127.0.0.1:9/img">' } }
        : step,
    );
    const { path, steps: cards } = await createRunReport({ ...run, steps }, join(folder, 'run.html'));
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      const url = pathToFileURL(path).href;
      await page.goto(url, { waitUntil: 'load' });

      // data: images are not requests of their own in Chromium's network layer.
      expect(requests.filter((request) => !request.startsWith('data:'))).toEqual([url]);
      expect(consoleErrors).toEqual([]); // a CSP violation would show here
      expect(await page.locator('article.step').count()).toBe(cards);
      expect(cards).toBe(6);
      expect(await page.locator('article.step[data-actor="navigator"]').count()).toBe(4);
      const images = await page
        .locator('img.screenshot')
        .evaluateAll((elements) =>
          elements.map((element) => ({ complete: (element as HTMLImageElement).complete, width: (element as HTMLImageElement).naturalWidth })),
        );
      expect(images).toEqual([
        { complete: true, width: 640 },
        { complete: true, width: 640 },
        { complete: true, width: 640 },
      ]);
      // The hostile title is text on the page, not an element.
      expect(await page.locator('article.step[data-step="2"][data-actor="navigator"] .title').textContent()).toContain('<script>');
      expect(await page.locator('script').count()).toBe(0);

      const screenshot = await page.screenshot({ type: 'png', fullPage: false });
      // A blank page compresses to almost nothing; this one has text, cards and a screenshot.
      expect(screenshot.byteLength).toBeGreaterThan(20_000);
      const colours = await page.evaluate(async (base64) => {
        const image = new Image();
        image.src = `data:image/png;base64,${base64}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context2d = canvas.getContext('2d') as CanvasRenderingContext2D;
        context2d.drawImage(image, 0, 0);
        const { data } = context2d.getImageData(0, 0, canvas.width, canvas.height);
        const seen = new Set<number>();
        for (let at = 0; at < data.length; at += 4 * 7)
          seen.add(((data[at] as number) >> 4) | (((data[at + 1] as number) >> 4) << 4) | (((data[at + 2] as number) >> 4) << 8));
        return seen.size;
      }, screenshot.toString('base64'));
      expect(colours).toBeGreaterThan(20);
    } finally {
      await context.close();
    }
  });
});
