// The whole address of each indexed link, for the next pages the survey names by index (the model's
// view shortens hrefs or leaves them out), and what each indexed element showed (tag, text, naming
// attributes) to find a control again without a model. Read off the reader's snapshots; it never changes them.

import type { BrowserDriver, ElementRef } from '../browser/types';
import type { ControlLocator } from './store';
import { runtimeScriptId } from '../dom/page-runtime';
import type { SnapshotScriptOptions } from '../dom/types';
import { validateFrameSnapshot } from '../dom/validate-snapshot';

const snapshotScriptId = runtimeScriptId('snapshot');

/** The attributes that name a control, kept to find it again: not `href` or `value`, which change from page to page. */
const namingAttributes = ['aria-label', 'title', 'name', 'rel', 'type', 'role'] as const;

/** The links of the latest snapshot of each frame, and the frames' URLs their hrefs are relative to. */
export class LinkTargets {
  /** By frame id: each link's href as the page sent it (a path for its own origin), by element id. */
  private readonly hrefs = new Map<string, ReadonlyMap<string, string>>();
  /** By frame id: what each element of the latest snapshot showed, by element id. */
  private readonly facts = new Map<string, ReadonlyMap<string, ControlLocator>>();
  private frameUrls: ReadonlyMap<string, string> = new Map();

  /** `options` are the reader's, so the snapshot is checked the same way. */
  constructor(private readonly options: SnapshotScriptOptions) {}

  /** `driver` as the page-state reader should use it: the same calls, with its frame lists and snapshots noted on their way. */
  watch(driver: BrowserDriver): BrowserDriver {
    return {
      specificationVersion: driver.specificationVersion,
      tabs: (options) => driver.tabs(options),
      activeTab: (options) => driver.activeTab(options),
      openTab: (url, options) => driver.openTab(url, options),
      switchTab: (tabId, options) => driver.switchTab(tabId, options),
      closeTab: (tabId, options) => driver.closeTab(tabId, options),
      goto: (url, options) => driver.goto(url, options),
      frames: async (options) => {
        const frames = await driver.frames(options);
        this.frameUrls = new Map(frames.map((frame) => [frame.id, frame.url]));
        for (const frameId of this.hrefs.keys()) if (!this.frameUrls.has(frameId)) this.hrefs.delete(frameId);
        for (const frameId of this.facts.keys()) if (!this.frameUrls.has(frameId)) this.facts.delete(frameId);
        return frames;
      },
      evaluate: async (frameId, script, argument, options) => {
        const result = await driver.evaluate(frameId, script, argument, options);
        if (script.id === snapshotScriptId) {
          const { links, facts } = this.read(result);
          this.hrefs.set(frameId, links);
          this.facts.set(frameId, facts);
        }
        return result;
      },
      screenshot: (options) => driver.screenshot(options),
      close: () => driver.close(),
      [Symbol.asyncDispose]: () => driver[Symbol.asyncDispose](),
    };
  }

  /** The absolute http(s) URL `element` links to, as of the latest snapshot of its frame; undefined when it is no such link. */
  targetOf(element: ElementRef): string | undefined {
    const href = this.hrefs.get(element.frameId)?.get(element.elementId);
    const base = this.frameUrls.get(element.frameId);
    // An href the page cut at its length limit ends in `…`: not an address to load.
    if (href === undefined || base === undefined || href.endsWith('…')) return undefined;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return undefined;
    }
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  }

  /** What `element` showed in the latest snapshot of its frame: its tag, text and naming attributes. */
  factsOf(element: ElementRef): ControlLocator | undefined {
    return this.facts.get(element.frameId)?.get(element.elementId);
  }

  /** The page controls what the snapshot script returns: only a snapshot that validates gives links. */
  private read(raw: unknown): { links: ReadonlyMap<string, string>; facts: ReadonlyMap<string, ControlLocator> } {
    const links = new Map<string, string>();
    const facts = new Map<string, ControlLocator>();
    let snapshot;
    try {
      snapshot = validateFrameSnapshot(raw, this.options);
    } catch {
      return { links, facts }; // the reader rejects it too
    }
    for (const item of snapshot.items) {
      if (item.kind !== 'element') continue;
      if (item.attributes.href !== undefined) links.set(item.elementId, item.attributes.href);
      const attributes: Record<string, string> = {};
      for (const name of namingAttributes) if (item.attributes[name] !== undefined) attributes[name] = item.attributes[name];
      facts.set(item.elementId, { tag: item.tagName, text: item.text.replace(/\s+/g, ' ').trim(), attributes });
    }
    return { links, facts };
  }
}
