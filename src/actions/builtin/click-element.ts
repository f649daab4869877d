// The `click_element` action: clicks the element the model saw, checks that the click landed on
// it (once more when it did not), says how it got there and whether it opened a tab or navigated.

import { z } from 'zod';
import type { ClickResult, ElementRef } from '../../browser/types';
import type { ClickTargetAnswer } from '../../dom/page/actions/click';
import type { ClickLanding } from '../../dom/page/actions/click-landing';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { describeDropdown, readDropdown } from './dropdown';
import { describeMove, elementArgument, quoted, runElementScript, staleAnswerSchema, staleElementError, whereabouts } from './element-script';

/** Validates what the page says the element is (the page controls the JSON it sends back). */
export const clickTargetAnswerSchema: z.ZodType<ClickTargetAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('ok'), kind: z.enum(['select', 'file', 'other']), description: z.string().max(500) }),
]);

/** `<tag> "name"` as the page names a target (the name JSON-quoted): anything else is no answer of the runtime's. */
const landingDescription = z
  .string()
  .max(200)
  .regex(/^<[a-z][a-z0-9-]*>(?: "(?:[^"\\]|\\.)*")?$/)
  .nullable();

/** Validates where the page says the click's events went. */
export const clickLandingSchema: z.ZodType<ClickLanding> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('unwatched') }),
  z.object({ status: z.literal('ok'), landed: z.boolean(), press: landingDescription, release: landingDescription, click: landingDescription }),
]);

/** Validates the answer of the wait for a box that stays put. */
const stableBoxSchema = z.discriminatedUnion('status', [staleAnswerSchema, z.object({ status: z.literal('ok'), stable: z.boolean() })]);

/** How long a target still growing into place (an icon whose image loads on hover) is waited for before the second try. */
const growingTargetMs = 1000;

/**
 * Arms the page's watch on the element, runs the click, and reads where its events went. A watch
 * that cannot be armed or read (the click loaded another document, opened a tab, the frame went)
 * leaves the verdict open: only a miss the page saw is reported.
 */
async function watchedClick(
  context: ActionContext,
  ref: ElementRef,
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- what BrowserDriver.click resolves with
): Promise<{ clicked: ClickResult | void; landing: Extract<ClickLanding, { status: 'ok' }> | undefined }> {
  const armed = await runElementScript(context, ref.frameId, 'watchClick', elementArgument(ref), z.object({ status: z.string() })).catch(() => undefined);
  if (armed?.status === 'stale') throw staleElementError('click_element', ref);
  const clicked = await context.driver.click(ref, { signal: context.signal });
  if (armed?.status !== 'ok') return { clicked, landing: undefined };
  const landing = await runElementScript(context, ref.frameId, 'clickLanding', undefined, clickLandingSchema).catch(() => undefined);
  return { clicked, landing: landing?.status === 'ok' ? landing : undefined };
}

/** Where the events of a click that missed went, in the model's words. */
function describeMiss(landing: Extract<ClickLanding, { status: 'ok' }>): string {
  const parts = [
    landing.press ? `the press landed on ${landing.press}` : undefined,
    landing.release ? `the release on ${landing.release}` : undefined,
    landing.click ? `the click on ${landing.click}` : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(', ') : 'its events went elsewhere';
}

/** What the model should know about how the click reached the element. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- what BrowserDriver.click resolves with: a ClickResult, or nothing
function describeClick(result: ClickResult | void): string {
  if (!result || result.method === 'pointer') return '';
  // The covering layer is named by its id and classes, which the page chooses: quoted, so an id
  // such as "x. Ignore the task" reads as a name and not as a sentence of ours.
  const layer = result.coveredBy ? quoted(result.coveredBy) : undefined;
  const by = layer ? ` by ${layer}` : '';
  if (result.method === 'pointer-offset') return ` Its centre was covered${by}, so the mouse clicked another visible part of it.`;
  if (layer) {
    return ` The mouse could not reach it (covered by ${layer}), so the click was dispatched in the page; if nothing happened, close ${layer} first.`;
  }
  return ' The mouse could not reach it (no point of it showed), so the click was dispatched in the page; if nothing happened, scroll to it or read the page again.';
}

/** Clicks an element by its index. */
export const clickElementAction = defineAction({
  name: 'click_element',
  description:
    'Click an element by its index: links, buttons, checkboxes, tabs, menu items. For a select it lists the options instead (then use select_dropdown_option); for a file input use upload_file.',
  schema: z.object({ index: z.number().int().nonnegative().describe('The index of the element to click, from the current page state') }),
  handler: async ({ index }, context) => {
    const action = 'click_element';
    const ref = context.element(index);
    const target = await runElementScript(context, ref.frameId, 'clickTarget', elementArgument(ref), clickTargetAnswerSchema);
    if (target.status === 'stale') throw staleElementError(action, ref, target.reason);
    if (target.kind === 'select') {
      const answer = await readDropdown(context, action, ref);
      return {
        extractedContent: `Did not click: clicking a select does not choose an option. ${describeDropdown(index, answer, false)}`,
        includeInMemory: true,
      };
    }
    if (target.kind === 'file') {
      throw new ActionError(
        action,
        `Element ${index} (${target.description}) opens a file chooser, which cannot be used here. Use upload_file with index ${index} and the path of the file.`,
      );
    }
    const before = await whereabouts(context);
    let { clicked, landing } = await watchedClick(context, ref);
    if (landing && !landing.landed) {
      // Missed (an icon still growing into place, something laid over it on the press): once
      // more, at the element's current place, after its box has settled.
      const settled = await runElementScript(
        context,
        ref.frameId,
        'awaitStableBox',
        { locator: elementArgument(ref), maxMs: growingTargetMs },
        stableBoxSchema,
      ).catch(() => undefined);
      const first = landing;
      if (settled?.status === 'ok') ({ clicked, landing } = await watchedClick(context, ref));
      else landing = first;
      if (landing && !landing.landed) {
        const move = describeMove(before, await whereabouts(context));
        return {
          extractedContent: `Did not click element ${index} (${target.description}): ${describeMiss(first)}${settled?.status === 'ok' ? `; a second try missed too: ${describeMiss(landing)}` : ''}. Read the page again before you choose.${move.text}`,
          includeInMemory: true,
          stopSequence: true,
        };
      }
    }
    const move = describeMove(before, await whereabouts(context));
    return {
      extractedContent: `Clicked element ${index} (${target.description}).${describeClick(clicked)}${move.text}`,
      includeInMemory: true,
      ...(move.moved ? { stopSequence: true } : {}),
    };
  },
});
