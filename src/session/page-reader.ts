// The one way the core makes a page reader: the snapshot settings an entry point chooses
// (how far past the viewport, which attributes) over the one text limit every reader shares, so
// the model reads a page the same way from the Executor, observe(), a replay or a collection.

import type { BrowserDriver, ResolvedBrowserDriver } from '../browser/types';
import { defaultIncludeAttributes, PageStateReader } from '../dom/page-state-reader';

/** What an entry point may choose of how the page is read. */
export interface PageReaderOptions {
  /** Pixels past the viewport whose elements get an index; -1 for the whole page. @defaultValue 0 */
  readonly viewportExpansion?: number | undefined;
  /** The attributes the model reads. @defaultValue the core's whitelist */
  readonly includeAttributes?: readonly string[] | undefined;
}

/** The longest text of one element the model reads, for every reader. */
export const maxElementTextLength = 100;

/** The snapshot settings for `options`, defaults filled in. */
export function readerSettings(options: PageReaderOptions = {}): {
  viewportExpansion: number;
  includeAttributes: readonly string[];
  maxTextLength: number;
} {
  return {
    viewportExpansion: options.viewportExpansion ?? 0,
    includeAttributes: options.includeAttributes ?? defaultIncludeAttributes,
    maxTextLength: maxElementTextLength,
  };
}

/** A new reader of `driver`: its indexes start afresh. */
export function createPageReader(driver: BrowserDriver, options: PageReaderOptions = {}): PageStateReader {
  return new PageStateReader(driver, readerSettings(options));
}

/**
 * One reader per browser and snapshot settings, kept while the browser lives: an element keeps its
 * index from one observe() to the next, as from one Navigator step to the next, and `newIndices`
 * marks what appeared since the last one.
 */
const shared = new WeakMap<BrowserDriver, Map<string, PageStateReader>>();

/** The reader `browser` shares between calls (observe(), act()) for these settings. */
export function sharedPageReader(browser: BrowserDriver, driver: ResolvedBrowserDriver, options: PageReaderOptions = {}): PageStateReader {
  const settings = readerSettings(options);
  let bySettings = shared.get(browser);
  if (!bySettings) {
    bySettings = new Map();
    shared.set(browser, bySettings);
  }
  const key = JSON.stringify([settings.viewportExpansion, settings.includeAttributes]);
  let reader = bySettings.get(key);
  if (!reader) {
    reader = new PageStateReader(driver, settings);
    bySettings.set(key, reader);
  }
  return reader;
}
