// Shared helpers of the browser tests: one driver and one fixture server per test file, and a
// reader that captures the page as the model sees it.
import type { PageState } from '../../src/browser/page-state';
import { defaultIncludeAttributes, PageStateReader } from '../../src/dom/page-state-reader';
import type { SnapshotScriptOptions } from '../../src/dom/types';
import { PlaywrightDriver } from '../../src/playwright/index';
import { startFixtureServer, type FixtureServer } from './fixture-server';

export interface BrowserFixture {
  readonly driver: PlaywrightDriver;
  readonly server: FixtureServer;
  close(): Promise<void>;
}

export async function startBrowser(options: Parameters<typeof PlaywrightDriver.launch>[0] = {}): Promise<BrowserFixture> {
  const server = await startFixtureServer();
  const driver = await PlaywrightDriver.launch({ settle: { maxWaitMs: 2000 }, ...options });
  return {
    driver,
    server,
    close: async () => {
      await driver.close();
      await server.close();
    },
  };
}

export function scriptOptions(overrides: Partial<SnapshotScriptOptions> = {}): SnapshotScriptOptions {
  return { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100, ...overrides };
}

/** Loads a fixture page and captures it with a fresh reader. */
export async function capture(
  fixture: BrowserFixture,
  path: string | undefined,
  overrides: Partial<SnapshotScriptOptions> = {},
): Promise<PageState & { reader: PageStateReader }> {
  if (path !== undefined) await fixture.driver.goto(fixture.server.url(path));
  const reader = new PageStateReader(fixture.driver, scriptOptions(overrides));
  const state = await reader.capture({ screenshot: false });
  return { ...state, reader };
}

/** The element lines of a state text (lines with an index). */
export function elementLines(text: string): string[] {
  return text.split('\n').filter((line) => /^\t*\*?\[\d+\]</.test(line));
}

/** The first element line containing `needle`, or undefined. */
export function lineWith(text: string, needle: string): string | undefined {
  return elementLines(text).find((line) => line.includes(needle));
}

/** The index of the first element line containing `needle`. */
export function indexWith(text: string, needle: string): number {
  const line = lineWith(text, needle);
  const match = line ? /\[(\d+)\]/.exec(line) : null;
  if (!match) throw new Error(`no element line contains ${JSON.stringify(needle)} in:\n${text}`);
  return Number(match[1]);
}
