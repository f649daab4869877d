// The storage state of a PuppeteerDriver's browser context (Playwright's format): its cookies through
// CDP's Storage domain, and the localStorage of the origins its tabs have loaded, read and written in a
// hidden page (src/chromium/storage-state.ts). Puppeteer has no IndexedDB export: that part is left out.

import type { Browser, BrowserContext, Target } from 'puppeteer-core';
import type { StorageState } from '../browser/storage-state';
import {
  readCookies,
  readLocalStorage,
  storageStateOf,
  webOrigins,
  writeCookies,
  writeLocalStorage,
  type CdpBrowser,
  type CdpSession,
} from '../chromium/storage-state';

/** Runs `body` with a browser-level CDP session for the context's storage, detached after. */
async function withBrowserSession<T>(browser: Browser, context: BrowserContext | undefined, body: (cdp: CdpBrowser) => Promise<T>): Promise<T> {
  const session = await browser.target().createCDPSession();
  const cdp: CdpBrowser = {
    browserSession: session as unknown as CdpSession,
    sessionById: (sessionId) => session.connection()?.session(sessionId) as unknown as CdpSession | undefined,
    // The default context has no id: CDP's calls without one mean it.
    browserContextId: context?.id,
  };
  try {
    return await body(cdp);
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/** Adds a storage state's cookies and localStorage to a browser context (before the driver's tabs load anything). */
export async function applyStorageState(browser: Browser, context: BrowserContext | undefined, state: StorageState): Promise<void> {
  await withBrowserSession(browser, context, async (cdp) => {
    await writeCookies(cdp, state.cookies);
    await writeLocalStorage(cdp, state.origins);
  });
}

/** The web origins a browser context's tabs have loaded while a driver watched (and those open when it started). */
export class VisitedOrigins {
  private readonly urls = new Set<string>();
  private readonly context: BrowserContext;
  private readonly onChange = (target: Target): void => this.add(target.url());

  constructor(context: BrowserContext) {
    this.context = context;
    context.on('targetchanged', this.onChange);
    context.on('targetcreated', this.onChange);
    for (const target of context.targets()) this.add(target.url());
  }

  /** Notes a URL a tab loaded. */
  add(url: string): void {
    for (const origin of webOrigins([url])) this.urls.add(origin);
  }

  /** The origins, each once. */
  list(): string[] {
    for (const target of this.context.targets()) this.add(target.url());
    return [...this.urls];
  }

  /** Stops watching; the context may be the user's. */
  stop(): void {
    this.context.off('targetchanged', this.onChange);
    this.context.off('targetcreated', this.onChange);
  }
}

/** Every cookie of the context and the localStorage of the origins it has loaded. */
export async function readStorageState(browser: Browser, context: BrowserContext | undefined, origins: readonly string[]): Promise<StorageState> {
  return withBrowserSession(browser, context, async (cdp) => storageStateOf(await readCookies(cdp), await readLocalStorage(cdp, origins)));
}
