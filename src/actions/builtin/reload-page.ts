// The `reload_page` action: loads the active tab's page again, under the URL policy (a page the policy
// denies is not loaded again), with the driver's own reload or, without one, `goto` of its URL.

import { z } from 'zod';
import { defineAction } from '../define-action';
import { whereabouts } from './element-script';

/** Reloads the active tab. */
export const reloadPageAction = defineAction({
  name: 'reload_page',
  description: 'Reload the current tab: when the page is stuck, shows stale data, or says to refresh. Unsaved input on the page is lost.',
  schema: z.object({}),
  handler: async (_params, context) => {
    const url = await context.driver.currentUrl({ signal: context.signal });
    context.assertUrlAllowed(url);
    if (context.driver.reload) await context.driver.reload({ signal: context.signal });
    else await context.driver.goto(url, { signal: context.signal });
    const after = await whereabouts(context);
    const moved = after.url !== url ? ` It is now at ${after.url}.` : '';
    return { extractedContent: `Reloaded ${url}.${moved}`, includeInMemory: true, stopSequence: true };
  },
});
