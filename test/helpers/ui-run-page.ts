// What the run page's browser tests (test/front/ui*.test.ts) share: starting `plannav ui`'s server,
// a headless Chromium for the test, and reading the page as a person sees it (by data-testid only).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '../../src/chromium/find-chromium';

/** The options of `startRunPage` the tests use (the contract's, plus the demo's step delay). */
export interface RunPageOptions {
  readonly port?: number;
  readonly host?: '127.0.0.1';
  readonly demo?: boolean;
  readonly open?: boolean;
  /** Slows each call of the demo's scripted model, so that a pause or a stop lands mid-run. */
  readonly demoStepDelayMs?: number;
}

/** A started run page: `url` carries `?token=…`. */
export interface RunPage {
  readonly url: string;
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts the run page's server (src/ui/index.ts). The module is loaded by a path held in a variable, so
 * that the tests type-check while src/ui/ does not exist yet; the local types above are the contract's.
 */
export async function startRunPage(options: RunPageOptions): Promise<RunPage> {
  const modulePath = '../../src/ui/index';
  const module = (await import(/* @vite-ignore */ modulePath)) as { startRunPage: (options: RunPageOptions) => Promise<RunPage> };
  return module.startRunPage(options);
}

/** The system Chromium, headless, from a fresh temporary profile; `args` adds switches. */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', ...args],
  });
}

/** The CSS selector of an element by its `data-testid`. */
export const testId = (id: string): string => `[data-testid="${id}"]`;

/** The run states `run-status` shows. */
export const runStates = ['running', 'paused', 'done', 'failed', 'cancelled'] as const;
export type RunState = (typeof runStates)[number];

const statusPattern = new RegExp(`\\b(${runStates.join('|')})\\b`, 'i');

/** The run state a `run-status` text names, if any. */
export function runStateOf(text: string | null | undefined): RunState | undefined {
  return statusPattern.exec(text ?? '')?.[1]?.toLowerCase() as RunState | undefined;
}

interface StatusLogWindow {
  __plannavStatusLog?: string[];
}

/**
 * Records every text `run-status` shows in the context's pages, from before the page's own script
 * runs: a state that lasts a few milliseconds (a replay's `running`) is seen too, with no polling of
 * the page by the test beyond reading the record.
 */
export async function recordStatuses(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const log: string[] = [];
    (window as StatusLogWindow).__plannavStatusLog = log;
    const record = (): void => {
      const text = document.querySelector('[data-testid="run-status"]')?.textContent?.trim() ?? '';
      if (text && text !== log.at(-1)) log.push(text);
    };
    new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

/** The run states `run-status` went through so far (consecutive repeats dropped), read from {@link recordStatuses}' record. */
export async function statesSeen(page: Page): Promise<RunState[]> {
  const texts = await page.evaluate(() => [...((window as StatusLogWindow).__plannavStatusLog ?? [])]);
  const states: RunState[] = [];
  for (const state of texts.map(runStateOf)) if (state && state !== states.at(-1)) states.push(state);
  return states;
}

/** The run state `run-status` shows now. */
export async function currentState(page: Page): Promise<RunState | undefined> {
  return runStateOf(await page.locator(testId('run-status')).textContent());
}

interface LiveViewWindow {
  __plannavLiveViews?: Set<string>;
}

/**
 * Starts watching the live view from inside the page: every 100 ms a small copy of what it shows is kept
 * when it differs from those seen (at most 10 are kept, then the watch ends). Reads the pixels, so it
 * sees a change whether the page swaps the image's `src`, streams frames into one URL or draws on a canvas.
 */
export async function watchLiveView(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as LiveViewWindow).__plannavLiveViews = seen;
    const picture = (): string | undefined => {
      const element = document.querySelector('[data-testid="live-view"]');
      const source = element?.matches('img, canvas') ? element : element?.querySelector('img, canvas');
      if (source instanceof HTMLImageElement) {
        if (!source.complete || source.naturalWidth === 0) return undefined;
      } else if (!(source instanceof HTMLCanvasElement) || source.width === 0) {
        return undefined;
      }
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 120;
      canvas.getContext('2d')?.drawImage(source, 0, 0, canvas.width, canvas.height);
      return canvas.toDataURL('image/png');
    };
    const timer = setInterval(() => {
      const shown = picture();
      if (shown) seen.add(shown);
      if (seen.size >= 10) clearInterval(timer);
    }, 100);
  });
}

/** How many different pictures the live view showed since {@link watchLiveView}. */
export function liveViewsSeen(page: Page): Promise<number> {
  return page.evaluate(() => (window as LiveViewWindow).__plannavLiveViews?.size ?? 0);
}
