// The `input_text` action: replaces a field's text, turning dates, times and numbers into the
// input's own format, waits for the page to react, then reports what the field kept and which
// suggestions appeared.

import { z } from 'zod';
import type { ElementRef } from '../../browser/types';
import type { FieldAnswer, FieldValueAnswer } from '../../dom/page/actions/input';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError, isFatalError } from '../../errors';
import { sleep } from '../../util/abort';
import { normaliseInputValue } from '../input-formats';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { formatOptions, readDropdown } from './dropdown';
import { elementArgument, quoted, runElementScript, staleAnswerSchema, staleElementError } from './element-script';

/** Validates what the page says the field is (the page controls the JSON it sends back). */
export const fieldAnswerSchema: z.ZodType<FieldAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['value', 'content', 'select', 'toggle', 'file', 'button', 'none']),
    type: z.string().max(40),
    tagName: z.string().max(40),
    description: z.string().max(500),
    targetId: z.string().max(200).nullable(),
    suggestions: z.boolean(),
    password: z.boolean(),
    readOnly: z.boolean(),
    disabled: z.boolean(),
    maxLength: z.number().int().nullable(),
  }),
]);

/** Validates the value the page says the field holds. */
export const fieldValueAnswerSchema: z.ZodType<FieldValueAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('ok'), value: z.string().max(100_000).nullable(), length: z.number().int().nonnegative() }),
]);

const action = 'input_text';
/** How long an ARIA suggestion list may take to appear after typing (debounced searches included). */
const suggestionWaitMs = 1500;
const pollMs = 100;
/**
 * The wait for the page's reaction to typing, in milliseconds after the last keystroke: the first
 * change must come within `firstChangeMs` (debounced widgets such as jQuery UI's autocomplete wait
 * 300 ms, slower services more), then the DOM must stay unchanged for `quietMs`; a page that
 * never stops changing (a ticker) ends the wait at `maxMs`.
 */
export const reactionWait = { firstChangeMs: 700, quietMs: 150, maxMs: 2500 } as const;
/** Time beyond the cap the driver's call may take (the round trip) before it is given up. */
const reactionCallMarginMs = 1000;

/**
 * Runs a page-runtime call that only helps (noting the typing, waiting for the page): a failure
 * (the page navigated, the frame went away) is no failure of the typing; a cancel is.
 */
async function bestEffort(context: ActionContext, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (context.signal.aborted || isFatalError(error)) throw error;
  }
}

/**
 * Types into the field, then waits for the page to react, whatever the field's markup: suggestions
 * of a plain input are then in the page when the Navigator reads it next. The page notes the
 * field's last keystroke, so the wait's windows count from it and not from the end of the
 * driver's `fill` (which waits for the element first and settles the page after). Returns when
 * the fill ended (`Date.now()`).
 */
async function typeAndAwaitReaction(context: ActionContext, target: ElementRef, value: string): Promise<number> {
  const call = { signal: context.signal };
  await bestEffort(context, () => callRuntime(context.driver, target.frameId, 'watchTyping', elementArgument(target), call));
  await context.driver.fill(target, value, call);
  const filledAt = Date.now();
  await bestEffort(context, () =>
    callRuntime(
      context.driver,
      target.frameId,
      'awaitReaction',
      { ...elementArgument(target), ...reactionWait },
      { ...call, timeout: reactionWait.maxMs + reactionCallMarginMs },
    ),
  );
  return filledAt;
}

/** The options of a suggestion list, as one signature, to tell a list that appeared from one that was already there. */
async function suggestionSignature(context: ActionContext, ref: ElementRef): Promise<string> {
  const answer = await readDropdown(context, action, ref, { anyVisible: true });
  return answer.kind === 'aria' ? answer.options.map((option) => option.text).join('\n') : '';
}

/**
 * Waits (until `deadline`, cancellable) for a suggestion list that was not there before typing;
 * returns its option texts and count, or undefined when none appeared.
 */
async function waitForSuggestions(
  context: ActionContext,
  ref: ElementRef,
  before: string,
  deadline: number,
): Promise<{ texts: string; total: number } | undefined> {
  // Bounded by the deadline; the pass cap only guards against a clock that stands still.
  for (let pass = 0; pass <= suggestionWaitMs / pollMs; pass++) {
    const answer = await readDropdown(context, action, ref, { anyVisible: true });
    if (answer.kind === 'aria' && answer.options.length > 0) {
      const signature = answer.options.map((option) => option.text).join('\n');
      if (signature !== before) return { texts: formatOptions(answer.options.slice(0, 20), answer.total), total: answer.total };
    }
    if (Date.now() >= deadline) break;
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())), context.signal);
  }
  return undefined;
}

/** Why a field may hold something else than what was typed. */
function differenceReason(type: string, maxLength: number | null, typed: string, kept: number): string {
  if (maxLength !== null && kept === maxLength && typed.length > maxLength) return ` (it takes at most ${maxLength} characters)`;
  if (type === 'number' || type === 'range') return ' (the field limits or rounds numbers to its min, max and step)';
  return ' (the page limits or formats what is typed)';
}

/** Types text into an input, textarea or editable element. */
export const inputTextAction = defineAction({
  name: 'input_text',
  description:
    'Replace the text of an input, textarea or editable element. Dates, times and numbers may be written as people write them (10/11/2011 is month/day/year, 3:45 PM, 1,234.5). Reports what the field kept and suggestions that appear.',
  schema: z.object({
    index: z.number().int().nonnegative().describe('The index of the field, from the current page state'),
    text: z.string().max(10_000).describe('The text the field should hold; an empty string clears it'),
  }),
  handler: async ({ index, text }, context) => {
    const ref = context.element(index);
    const field = await runElementScript(context, ref.frameId, 'inspectField', elementArgument(ref), fieldAnswerSchema);
    if (field.status === 'stale') throw staleElementError(action, ref, field.reason);
    const name = `element ${index} (${field.description})`;
    const subject = `Element ${index} (${field.description})`;
    switch (field.kind) {
      case 'select':
        throw new ActionError(action, `Element ${index} is a select: choose an option with select_dropdown_option (get_dropdown_options lists them).`);
      case 'toggle':
        throw new ActionError(action, `Element ${index} is a ${field.type}: click it with click_element to change it.`);
      case 'file':
        throw new ActionError(action, `Element ${index} is a file input: use upload_file with index ${index} and the path of the file.`);
      case 'button':
      case 'none':
        throw new ActionError(
          action,
          `${subject} does not take text. Choose an input, a textarea or an editable element; a field that appears after a click needs that click first.`,
        );
      default:
        break;
    }
    if (field.disabled) throw new ActionError(action, `${subject} is disabled: it takes no text until the page enables it.`);
    if (field.readOnly) throw new ActionError(action, `${subject} is read-only: the page sets its value (often through a picker or a button next to it).`);

    const formatted = normaliseInputValue(field.type, text);
    if (!formatted.ok) {
      throw new ActionError(action, `${subject} is a ${field.type} input and cannot take ${quoted(text)}. Give ${formatted.expected}.`);
    }
    const value = formatted.value;
    const target: ElementRef = field.targetId ? { ...ref, elementId: field.targetId, tagName: field.tagName } : ref;
    const listSuggestions = field.suggestions && field.type !== 'password';
    const before = listSuggestions ? await suggestionSignature(context, target) : '';

    const filledAt = await typeAndAwaitReaction(context, target, value);

    const kept = await runElementScript(context, target.frameId, 'fieldValue', elementArgument(target), fieldValueAnswerSchema);
    if (kept.status === 'stale') {
      return { extractedContent: `Typed into ${name}; the page then replaced the field (it may have moved on).`, includeInMemory: true, stopSequence: true };
    }
    const parts: string[] = [];
    if (field.password) {
      parts.push(`Typed ${text.length} characters into ${name}.`);
      if (kept.length !== value.length)
        parts.push(`The field holds ${kept.length} characters, not ${value.length}${differenceReason(field.type, field.maxLength, value, kept.length)}.`);
    } else {
      parts.push(value === '' ? `Cleared ${name}.` : `Typed ${quoted(text, 300)} into ${name}${value !== text ? ` as ${quoted(value)}` : ''}.`);
      const keptValue = kept.value ?? '';
      // Text areas keep \n for \r\n; editable elements lay text out in lines of their own.
      const same =
        field.kind === 'content'
          ? keptValue.replace(/\s+/g, ' ').trim() === value.replace(/\s+/g, ' ').trim()
          : keptValue === value || keptValue === value.replace(/\r\n?/g, '\n');
      if (!same) parts.push(`The field now holds ${quoted(keptValue, 300)} instead${differenceReason(field.type, field.maxLength, value, kept.length)}.`);
    }

    let stopSequence = false;
    if (listSuggestions) {
      const datalist = await readDropdown(context, action, target, { filter: kept.value ?? value });
      if (datalist.kind === 'datalist') {
        const exact = datalist.options.some((option) => option.text === kept.value);
        if (datalist.total > 0 && !exact) {
          parts.push(
            `The field suggests ${datalist.total} value${datalist.total === 1 ? '' : 's'}:\n${formatOptions(datalist.options.slice(0, 20), datalist.total)}\nType one of them exactly with input_text if one is meant.`,
          );
          stopSequence = true;
        }
      } else {
        const appeared = await waitForSuggestions(context, target, before, filledAt + suggestionWaitMs);
        if (appeared) {
          parts.push(
            `${appeared.total} suggestion${appeared.total === 1 ? '' : 's'} appeared:\n${appeared.texts}\nClick one (read the page for their indices) if the field needs a choice from the list.`,
          );
          stopSequence = true;
        }
      }
    }
    return { extractedContent: parts.join(' '), includeInMemory: true, ...(stopSequence ? { stopSequence: true } : {}) };
  },
});
