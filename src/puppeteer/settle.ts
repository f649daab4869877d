// Settle detection for the Puppeteer driver: when a page is done reacting to an action (document
// parsed, network and DOM quiet). It only waits and watches; it never fails and never acts on a page.

import type { HTTPRequest, Page } from 'puppeteer-core';
import { callRuntime } from '../dom/page-runtime';
import { sleep } from '../util/abort';
import { within } from '../chromium/call';
import { PageSettler } from '../chromium/page-settler';
import { frameEvaluator } from '../chromium/runtime-calls';

/** Waits for the pages it watches to settle, within the settle bound. */
export class Settler extends PageSettler<Page, HTTPRequest> {
  /**
   * Waits until the page has settled: its document parsed, no tracked request in flight and no
   * DOM mutation for the quiet windows, until `deadline` at the latest. Never fails: a busy page
   * just ends the wait. With page JavaScript off the page's timers never fire, so the DOM wait is
   * left out (nothing but the network can change such a page), and every wait in the page is
   * bounded from Node.
   */
  override async waitUntilSettled(page: Page, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    const { domQuietMs } = this.options;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    const networkQuiet = (): boolean => this.networkQuiet(page);
    await this.documentParsed(page, deadline, signal);
    // Bounded by the deadline: every pass waits at least the DOM window or a short pause.
    for (let pass = 0; pass < 100 && remaining() > 0; pass++) {
      if (page.isClosed()) return;
      if (!page.isJavaScriptEnabled()) {
        if (networkQuiet()) return;
        await sleep(Math.min(50, remaining()), signal);
        continue;
      }
      const frame = page.mainFrame();
      // A navigation that destroys the document ends the call in the page: wait again in the new one.
      const inPage = callRuntime(frameEvaluator(frame), 'top', 'domQuiet', { quietMs: domQuietMs, maxMs: Math.max(1, remaining()) }).then(
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- the page's answer is untrusted: only true counts
        (quiet) => quiet === true,
      );
      const domQuiet = await within(inPage, remaining() + 20, true);
      if (domQuiet && networkQuiet()) return;
      if (!domQuiet) await this.documentParsed(page, deadline, signal);
      else await sleep(Math.min(50, remaining()), signal);
    }
  }

  /** Waits until the top document is parsed (`readyState` past `loading`), polling within the deadline. */
  private async documentParsed(page: Page, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    for (let poll = 0; poll < 200 && Date.now() < deadline; poll++) {
      if (page.isClosed()) return;
      // A document replaced under the call is still loading; a page busy with a long script cannot answer: the bound ends the wait.
      const read = page
        .mainFrame()
        .evaluate('document.readyState')
        .catch(() => 'loading');
      const state = await within(read, deadline - Date.now(), 'busy');
      if (state !== 'loading') return;
      await sleep(Math.min(50, Math.max(0, deadline - Date.now())), signal);
    }
  }
}
