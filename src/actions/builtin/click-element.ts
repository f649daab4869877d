// The `click_element` action: clicks the element the model saw, says how the click got there
// (past a covering layer, or dispatched in the page) and whether it opened a tab or navigated.

import { z } from 'zod';
import type { ClickResult } from '../../browser/types';
import type { ClickTargetAnswer } from '../../dom/page/actions/click';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';
import { describeDropdown, readDropdown } from './dropdown';
import { describeMove, elementArgument, quoted, runElementScript, staleAnswerSchema, staleElementError, whereabouts } from './element-script';

/** Validates what the page says the element is (the page controls the JSON it sends back). */
export const clickTargetAnswerSchema: z.ZodType<ClickTargetAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('ok'), kind: z.enum(['select', 'file', 'other']), description: z.string().max(500) }),
]);

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
    const clicked = await context.driver.click(ref, { signal: context.signal });
    const move = describeMove(before, await whereabouts(context));
    return {
      extractedContent: `Clicked element ${index} (${target.description}).${describeClick(clicked)}${move.text}`,
      includeInMemory: true,
      ...(move.moved ? { stopSequence: true } : {}),
    };
  },
});
