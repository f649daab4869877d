// The Collector's page slots: the browsers of its pool, leased for the run, each with the URL policy
// installed where the driver can enforce it and page text redacted where it enters Node.

import type { BrowserDriver } from '../browser/types';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import { raceAbort } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';
import type { ResolvedCollectOptions } from './options';
import { pageSlot, type PageSlot } from './page-step';

/** Opens one slot per browser (created from a pool when the option is one); what must be undone at the end goes to `cleanups`. */
export async function openPageSlots(input: {
  readonly options: Pick<ResolvedCollectOptions, 'browser' | 'browsers' | 'concurrency'>;
  readonly urlPolicy: UrlPolicy;
  readonly secrets: SecretStore;
  readonly signal: AbortSignal;
  readonly warn: (code: string, message: string) => void;
  readonly cleanups: (() => Promise<void> | void)[];
}): Promise<PageSlot[]> {
  const { options, urlPolicy, secrets, signal, cleanups } = input;
  const { browser, browsers, concurrency } = options;
  let raws: BrowserDriver[];
  if (browser) raws = [browser];
  else if (Array.isArray(browsers)) raws = browsers.slice(0, concurrency);
  else {
    const pool = browsers as { create(): Promise<BrowserDriver>; size: number };
    raws = [];
    for (let index = 0; index < Math.min(concurrency, pool.size); index++) {
      const created = await raceAbort(pool.create(), signal);
      cleanups.push(() => created.close());
      raws.push(created);
    }
  }
  const slots: PageSlot[] = [];
  for (const raw of raws) {
    const slot = pageSlot(raw, false);
    cleanups.push(slot.session.lease({ what: 'a running collection' }));
    // The session's one install: the guard an Executor keeps on a shared driver is lifted for the run and put back.
    const guard = slot.session.urlGuard(
      urlPolicy,
      {
        check: (url) => urlPolicy.check(url),
        blocked: (navigation) => input.warn('URL_BLOCKED', `The URL policy stopped ${navigation.url}: ${navigation.reason}`),
      },
      signal,
      'lift',
    );
    cleanups.push(() => guard.release());
    const installed = await guard.install();
    // Without the driver's guard, the policy still checks every URL the collection asks for and every page it ends on.
    if (installed.failure !== undefined)
      input.warn('URL_POLICY_GUARD_FAILED', `The driver could not install the URL policy: ${describeThrown(installed.failure)}`);
    // Page text is redacted where it enters Node, as in a task.
    if (!secrets.isEmpty) for (const driver of new Set<object>([raw, slot.driver])) cleanups.push(bindPageTextRedaction(driver, secrets));
    slots.push({ ...slot, guarded: installed.guarded });
  }
  return slots;
}
