// The `get_dropdown_options` and `select_dropdown_option` actions: native selects (multiple,
// optgroups, disabled options) and ARIA listboxes, menus and comboboxes (opened by a click when closed).

import { z } from 'zod';
import type { ElementRef } from '../../browser/types';
import type { DropdownAnswer, DropdownOption, SelectNativeAnswer } from '../../dom/page/actions/dropdown';
import { ActionError } from '../../errors';
import { sleep } from '../../util/abort';
import { defineAction } from '../define-action';
import type { ActionContext, ActionResult } from '../types';
import { describeMove, elementArgument, quoted, runElementScript, staleAnswerSchema, staleElementError, whereabouts } from './element-script';

const optionSchema = z.object({
  text: z.string().max(2000),
  value: z.string().max(2000).nullable(),
  selected: z.boolean(),
  disabled: z.boolean(),
  group: z.string().max(2000).nullable(),
  elementId: z.string().max(200).nullable(),
});

/** Validates what the page says of a dropdown (the page controls the JSON it sends back). */
export const dropdownAnswerSchema: z.ZodType<DropdownAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['native', 'datalist', 'aria', 'closed', 'none']),
    multiple: z.boolean(),
    options: z.array(optionSchema).max(500),
    total: z.number().int().nonnegative(),
    display: z.string().max(2000),
    description: z.string().max(500),
    within: z.boolean(),
  }),
]);

/** Validates what the page says a multiple select holds after the change. */
export const selectNativeAnswerSchema: z.ZodType<SelectNativeAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('ok'), selected: z.array(z.string().max(2000)).max(500) }),
]);

/** A dropdown as read from the page. */
type OpenAnswer = Extract<DropdownAnswer, { status: 'ok' }>;

/** How long a closed list may take to appear after the click that opens it. */
const openWaitMs = 1500;
const pollMs = 100;
/** At most this many options are listed for the model. */
const listedOptions = 200;

/** Reads the element as a dropdown. @throws the stale-element error when it has gone. */
export async function readDropdown(
  context: ActionContext,
  action: string,
  ref: ElementRef,
  options: { register?: boolean; anyVisible?: boolean; filter?: string | null } = {},
): Promise<OpenAnswer> {
  const answer = await runElementScript(
    context,
    ref.frameId,
    'readDropdown',
    { ...elementArgument(ref), register: options.register ?? false, anyVisible: options.anyVisible ?? false, filter: options.filter ?? null },
    dropdownAnswerSchema,
  );
  if (answer.status === 'stale') throw staleElementError(action, ref, answer.reason);
  return answer;
}

/**
 * Clicks a closed dropdown's trigger and waits (bounded, cancellable) until its options show.
 * The list is left open: the model sees it in the next state.
 */
async function openDropdown(context: ActionContext, action: string, ref: ElementRef, register: boolean): Promise<OpenAnswer> {
  await context.driver.click(ref, { signal: context.signal });
  const deadline = Date.now() + openWaitMs;
  let answer = await readDropdown(context, action, ref, { register, anyVisible: true });
  // Bounded by the deadline; the pass cap only guards against a clock that stands still.
  for (let pass = 0; answer.kind === 'closed' && Date.now() < deadline && pass < openWaitMs / pollMs; pass++) {
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())), context.signal);
    answer = await readDropdown(context, action, ref, { register, anyVisible: true });
  }
  if (answer.kind === 'closed') {
    throw new ActionError(
      action,
      `Clicked element ${ref.index} (${answer.description}) but no list of options appeared within ${openWaitMs / 1000} s. Read the page again: the options may show as elements to click.`,
    );
  }
  return answer;
}

/** One line per option: number, exact text in quotes, and its state; group headings for optgroups. */
export function formatOptions(options: readonly DropdownOption[], total: number): string {
  const lines: string[] = [];
  let group: string | null = null;
  options.slice(0, listedOptions).forEach((option, position) => {
    if (option.group !== group) {
      group = option.group;
      if (group !== null) lines.push(`Group ${quoted(group)}:`);
    }
    const states = [option.selected ? 'selected' : '', option.disabled ? 'disabled' : ''].filter(Boolean);
    lines.push(`${group !== null ? '  ' : ''}${position + 1}. ${quoted(option.text, 200)}${states.length > 0 ? ` (${states.join(', ')})` : ''}`);
  });
  const shown = Math.min(options.length, listedOptions);
  if (total > shown) lines.push(`… and ${total - shown} more options.`);
  return lines.join('\n');
}

/** The options of a dropdown answer as the model reads them, with what to do next. */
export function describeDropdown(index: number, answer: OpenAnswer, opened: boolean): string {
  const selected = answer.options.filter((option) => option.selected).map((option) => quoted(option.text));
  if (answer.kind === 'datalist') {
    return [
      `Element ${index} (${answer.description}) suggests ${answer.total} value${answer.total === 1 ? '' : 's'}:`,
      formatOptions(answer.options, answer.total),
      `Type one of them exactly with input_text index ${index}.`,
    ].join('\n');
  }
  const kind = answer.kind === 'native' ? 'select' : 'list';
  const choice = answer.multiple ? 'several may be selected' : 'one may be selected';
  const head = `Element ${index} (${answer.description}) is a ${kind} with ${answer.total} option${answer.total === 1 ? '' : 's'} (${choice}; selected: ${selected.length > 0 ? selected.join(', ') : 'none'})${opened ? '; it was closed, so it was opened with a click and is left open' : ''}:`;
  return [head, formatOptions(answer.options, answer.total), `Use select_dropdown_option with index ${index} and the exact text of an option.`].join('\n');
}

/**
 * The option meant by `wanted`: exact text (spaces collapsed), then the same ignoring case, then
 * (native) the value, then the only option that contains it.
 */
export function matchOption(options: readonly DropdownOption[], wanted: string): { index: number } | { ambiguous: string[] } | undefined {
  const clean = (value: string): string => value.replace(/\s+/g, ' ').trim();
  const target = clean(wanted);
  const lower = target.toLowerCase();
  let index = options.findIndex((option) => clean(option.text) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.text).toLowerCase() === lower);
  if (index === -1) index = options.findIndex((option) => option.value !== null && clean(option.value).toLowerCase() === lower);
  if (index !== -1) return { index };
  if (!lower) return undefined;
  const containing = options.flatMap((option, position) => (clean(option.text).toLowerCase().includes(lower) ? [position] : []));
  if (containing.length === 1 && containing[0] !== undefined) return { index: containing[0] };
  return containing.length > 1 ? { ambiguous: containing.map((position) => options[position]?.text ?? '') } : undefined;
}

/** The list of options for an error message, capped. */
function availableOptions(options: readonly DropdownOption[]): string {
  const shown = options.slice(0, 50).map((option) => quoted(option.text) + (option.disabled ? ' (disabled)' : ''));
  return shown.join(', ') + (options.length > 50 ? `, … (${options.length - 50} more)` : '');
}

/** The positions of the wanted options, or a recoverable error naming what is missing and what exists. */
function resolveOptions(action: string, index: number, answer: OpenAnswer, wanted: readonly string[]): number[] {
  if (wanted.length > 1 && !answer.multiple) {
    throw new ActionError(action, `Element ${index} (${answer.description}) allows only one selected option; give one text.`);
  }
  const positions: number[] = [];
  for (const text of wanted) {
    const match = matchOption(answer.options, text);
    if (!match)
      throw new ActionError(
        action,
        `Element ${index} (${answer.description}) has no option ${quoted(text)}. Available options: ${availableOptions(answer.options)}.`,
      );
    if ('ambiguous' in match) {
      throw new ActionError(
        action,
        `Several options of element ${index} contain ${quoted(text)}: ${match.ambiguous.map((option) => quoted(option)).join(', ')}. Give the exact text of one.`,
      );
    }
    const option = answer.options[match.index];
    if (option?.disabled) throw new ActionError(action, `Option ${quoted(option.text)} of element ${index} is disabled and cannot be selected.`);
    if (!positions.includes(match.index)) positions.push(match.index);
  }
  return positions;
}

const indexParameter = z.number().int().nonnegative().describe('The index of the dropdown (a select, a listbox, a combobox or the button that opens it)');

/** Lists the options of a dropdown with their exact text and which are selected. */
export const getDropdownOptionsAction = defineAction({
  name: 'get_dropdown_options',
  description:
    'List the options of a dropdown (a select, a listbox, a menu or a combobox; a closed one is opened) with their exact text and which are selected. Use before select_dropdown_option when the options are not shown.',
  schema: z.object({ index: indexParameter }),
  handler: async ({ index }, context) => {
    const action = 'get_dropdown_options';
    const ref = context.element(index);
    let answer = await readDropdown(context, action, ref);
    let opened = false;
    if (answer.kind === 'closed') {
      answer = await openDropdown(context, action, ref, false);
      opened = true;
    }
    if (answer.kind === 'none') {
      throw new ActionError(
        action,
        `Element ${index} (${answer.description}) is not a dropdown (no select, listbox, menu or combobox). Click it, or read the page for the options.`,
      );
    }
    return { extractedContent: describeDropdown(index, answer, opened), includeInMemory: true };
  },
});

/** Selects options of a dropdown by their text. */
export const selectDropdownOptionAction = defineAction({
  name: 'select_dropdown_option',
  description:
    'Select an option of a dropdown (a select, a listbox, a menu or a combobox) by its text; the exact text from get_dropdown_options is safest. For a multiple select, a list of texts becomes the whole selection.',
  schema: z.object({
    index: indexParameter,
    text: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(20)])
      .describe('The text of the option to select, or for a multiple select the texts of every option that should be selected'),
  }),
  handler: async ({ index, text }, context) => {
    const action = 'select_dropdown_option';
    const ref = context.element(index);
    const wanted = Array.isArray(text) ? text : [text];
    let answer = await readDropdown(context, action, ref, { register: true });
    if (answer.kind === 'closed') answer = await openDropdown(context, action, ref, true);
    if (answer.kind === 'none') {
      throw new ActionError(
        action,
        `Element ${index} (${answer.description}) is not a dropdown (no select, listbox, menu or combobox). Click the option you want instead.`,
      );
    }
    if (answer.kind === 'datalist') {
      throw new ActionError(
        action,
        `Element ${index} (${answer.description}) is a text field with suggestions: type the value with input_text index ${index}.`,
      );
    }
    const positions = resolveOptions(action, index, answer, wanted);
    const chosen = positions.map((position) => answer.options[position]?.text ?? '');
    const selected = `Selected ${chosen.map((option) => quoted(option)).join(', ')} in element ${index} (${answer.description})`;
    const before = await whereabouts(context);
    /** The result when the choice took the browser elsewhere (a jump menu, a menu item that navigates). */
    const movedAway = async (): Promise<ActionResult | undefined> => {
      const move = describeMove(before, await whereabouts(context));
      return move.moved ? { extractedContent: `${selected}.${move.text}`, includeInMemory: true, stopSequence: true } : undefined;
    };

    if (answer.kind === 'native') {
      if (!answer.multiple) {
        await context.driver.selectOption(ref, chosen[0] ?? '', { signal: context.signal });
      } else {
        const result = await runElementScript(context, ref.frameId, 'selectNative', { ...elementArgument(ref), indices: positions }, selectNativeAnswerSchema);
        if (result.status === 'stale') throw staleElementError(action, ref, result.reason);
        await context.driver.waitForSettled({ signal: context.signal });
      }
      const moved = await movedAway();
      if (moved) return moved;
      const after = await readDropdown(context, action, ref);
      return { extractedContent: `${selected}; selected now: ${after.display ? quoted(after.display, 300) : 'none'}.`, includeInMemory: true };
    }

    // ARIA: click each option whose state must change; a list that closed after a click is opened again.
    const wantedTexts = new Set(chosen);
    let current = answer;
    const toggles = answer.multiple
      ? answer.options.filter((option) => !option.disabled && option.selected !== wantedTexts.has(option.text)).map((option) => option.text)
      : chosen;
    for (const optionText of toggles.slice(0, 40)) {
      if (current.kind !== 'aria') current = await openDropdown(context, action, ref, true);
      const option = current.options.find((candidate) => candidate.text === optionText);
      if (!option?.elementId) throw new ActionError(action, `Option ${quoted(optionText)} of element ${index} went away while selecting; read the page again.`);
      await context.driver.click({ index, frameId: ref.frameId, elementId: option.elementId, tagName: 'option' }, { signal: context.signal });
      const moved = await movedAway();
      if (moved) return moved;
      try {
        current = await readDropdown(context, action, ref, { register: true });
      } catch (error) {
        // The page replaced the dropdown after the click (a re-render): the choice was made, its result cannot be read here.
        if (!ActionError.isInstance(error)) throw error;
        return {
          extractedContent: `${selected}; the page then replaced the dropdown: read the page to see the result.`,
          includeInMemory: true,
          stopSequence: true,
        };
      }
    }
    const selectedNow = current.kind === 'aria' ? current.options.filter((option) => option.selected).map((option) => option.text) : [];
    const shows = current.display && !current.within ? `; it now shows ${quoted(current.display)}` : '';
    const state = selectedNow.length > 0 ? `; selected now: ${selectedNow.map((option) => quoted(option)).join(', ')}` : '';
    const confirmed = chosen.every((option) => selectedNow.includes(option) || (!current.within && current.display.includes(option)));
    const check = confirmed ? '' : ' The page does not show the choice as selected yet: read the page to check.';
    return { extractedContent: `${selected}${shows}${state}.${check}`, includeInMemory: true };
  },
});
