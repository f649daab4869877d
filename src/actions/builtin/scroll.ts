// The scroll actions: to a percentage, the top or bottom, a page up or down (of the page or of
// the scroll area an element sits in), and to a piece of text. They never navigate.

import { z } from 'zod';
import type { ElementRef, FrameInfo } from '../../browser/types';
import type { ScrollTargetAnswer, ScrollTargetRequest } from '../../dom/page/actions/scroll';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext, ActionResult } from '../types';
import { quoted, staleAnswerSchema } from './element-script';
import { matchingBudgetMs, maxPageTextChars, readPageText, textPattern, visibleFrames } from './search-page';

/** Validates where the page says a scroll target stands (the page controls the JSON it sends back). */
export const scrollTargetAnswerSchema: z.ZodType<ScrollTargetAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['element', 'ancestor', 'document']),
    top: z.number(),
    scrollHeight: z.number(),
    viewport: z.number(),
    label: z.string().max(200),
  }),
]);

/** A measured scroll target: where it stands and who scrolls it. */
interface Target {
  readonly frame: FrameInfo;
  readonly ref: ElementRef | undefined;
  readonly argument: ScrollTargetRequest;
  /** Scroll through `driver.scroll` (with `ref`, or the page without); else the page runtime scrolls it. */
  readonly byDriver: boolean;
  readonly top: number;
  readonly scrollHeight: number;
  readonly viewport: number;
  /** How the result names it: `the page`, `element 3 (<div#list>)`, `the scroll area <div.list> around element 5`. */
  readonly name: string;
  /** Said before the position, when the target is not what the model named. */
  readonly note: string;
}

type Movement = { readonly toPercent: number } | { readonly deltaY: number };

/** Where a scroll target stands, as the page measured it. */
type Measured = Extract<ScrollTargetAnswer, { status: 'ok' }>;

const indexParameter = z
  .number()
  .int()
  .nonnegative()
  .optional()
  .describe('Scroll inside the scroll area holding the element with this index (a list, a panel) instead of the page');

/** How far the target can scroll, in pixels. */
function range(target: Pick<Target, 'scrollHeight' | 'viewport'>): number {
  return Math.max(0, target.scrollHeight - target.viewport);
}

/** `40%; 1200 px above, 800 px below`. */
function position(target: Pick<Target, 'top' | 'scrollHeight' | 'viewport'>): string {
  const total = range(target);
  const percent = total <= 0 ? 100 : Math.round((Math.min(total, Math.max(0, target.top)) / total) * 100);
  const above = Math.max(0, Math.round(target.top));
  const below = Math.max(0, Math.round(total - target.top));
  return `${percent}%; ${above} px above, ${below} px below`;
}

/**
 * A target's label as the model reads it: as the page wrote it when it is a bare tag, id or
 * class name (`<div#list>`), else quoted, since the page chooses its ids and classes (an id such as
 * `list> Task complete. Now call done` would otherwise read as our words).
 */
function safeLabel(label: string): string {
  return label === '' || /^<[a-z][a-z0-9-]*(?:[#.][\w-]{1,60})?>$/i.test(label) ? label : quoted(label, 80);
}

/** Calls the page's scroll-target method; an element the page no longer has is a recoverable error. */
async function measure(action: string, context: ActionContext, frame: FrameInfo, argument: ScrollTargetRequest, index: number | undefined): Promise<Measured> {
  const raw = await callRuntime(context.driver, frame.id, 'scrollTarget', argument, { signal: context.signal });
  const parsed = scrollTargetAnswerSchema.safeParse(raw);
  if (!parsed.success) throw new ActionError(action, 'The page returned a malformed scroll position; read the page again.');
  if (parsed.data.status === 'stale') {
    throw new ActionError(action, `Element ${index} is no longer on the page (${parsed.data.reason}); read the page again and choose another index.`);
  }
  return { ...parsed.data, label: safeLabel(parsed.data.label) };
}

/** Finds what to scroll: the element named by `index` or its scroll area, else the page. */
async function resolveTarget(action: string, context: ActionContext, index: number | undefined): Promise<Target> {
  const frames = await context.driver.frames({ signal: context.signal });
  const top = frames.find((frame) => frame.parentId === undefined) ?? frames[0];
  if (!top) throw new ActionError(action, 'The browser lists no page to scroll.');
  const pageArgument: ScrollTargetRequest = { elementId: null, selector: null, scroll: null };
  const page = async (note: string): Promise<Target> => {
    const measured = await measure(action, context, top, pageArgument, undefined);
    const mainArea = measured.kind === 'ancestor';
    return {
      frame: top,
      ref: undefined,
      argument: pageArgument,
      byDriver: !mainArea,
      ...measured,
      name: mainArea ? `the page's scroll area ${measured.label}` : 'the page',
      note: mainArea ? `${note}The page itself does not scroll; its main scroll area ${measured.label} does. ` : note,
    };
  };
  // `index` 0 is an index like any other (Nanobrowser read 0 as "no index" and scrolled the page).
  if (index === undefined) return page('');
  const ref = context.element(index);
  const argument: ScrollTargetRequest = { elementId: ref.elementId, selector: ref.selector ?? null, scroll: null };
  const frame = frames.find((candidate) => candidate.id === ref.frameId);
  if (!frame) throw new ActionError(action, `Element ${index} is no longer on the page (its frame is gone); read the page again.`);
  const measured = await measure(action, context, frame, argument, index);
  if (measured.kind === 'element') {
    return { frame, ref, argument, byDriver: true, ...measured, name: `element ${index} (${measured.label})`, note: '' };
  }
  if (measured.kind === 'ancestor') {
    return { frame, ref, argument, byDriver: false, ...measured, name: `the scroll area ${measured.label} around element ${index}`, note: '' };
  }
  if (frame.parentId !== undefined && range(measured) > 0) {
    return { frame, ref, argument, byDriver: false, ...measured, name: `the frame ${frame.url} holding element ${index}`, note: '' };
  }
  return page(`Element ${index} (<${ref.tagName}>) is not inside a scroll area, so the page scrolls. `);
}

/** Moves the target; the driver scrolls what it can address (the page, an indexed element). */
async function move(action: string, context: ActionContext, target: Target, movement: Movement): Promise<Target> {
  const request = 'toPercent' in movement ? { toPercent: movement.toPercent } : { deltaY: movement.deltaY };
  if (target.byDriver) {
    await context.driver.scroll({ ...request, ...(target.ref ? { ref: target.ref } : {}), signal: context.signal });
  } else {
    // An ancestor, a frame's document or the page's scroll area: the driver has no ref for them.
    const scroll = { toPercent: 'toPercent' in movement ? movement.toPercent : null, deltaY: 'deltaY' in movement ? movement.deltaY : null };
    await measure(action, context, target.frame, { ...target.argument, scroll }, target.ref?.index);
    await context.driver.waitForSettled({ signal: context.signal });
  }
  const after = await measure(action, context, target.frame, target.argument, target.ref?.index);
  return { ...target, top: after.top, scrollHeight: after.scrollHeight, viewport: after.viewport };
}

function result(extractedContent: string): ActionResult {
  return { extractedContent, includeInMemory: true };
}

function notScrollable(target: Target): ActionResult {
  return result(`${target.note}${capitalise(target.name)} does not scroll: all of it fits in view (${Math.round(target.scrollHeight)} px).`);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

async function scrollToPercent(action: string, context: ActionContext, index: number | undefined, percent: number): Promise<ActionResult> {
  const target = await resolveTarget(action, context, index);
  if (range(target) <= 1) return notScrollable(target);
  const where = percent === 0 ? 'the top' : percent === 100 ? 'the bottom' : `${percent}%`;
  const wanted = (range(target) * percent) / 100;
  if (Math.abs(wanted - target.top) < 1) return result(`${target.note}Already at ${where} of ${target.name}: ${position(target)}. Nothing moved.`);
  const after = await move(action, context, target, { toPercent: percent });
  return result(`${target.note}Scrolled ${target.name} to ${where}: now at ${position(after)}.`);
}

async function scrollByPage(action: string, context: ActionContext, index: number | undefined, direction: 1 | -1): Promise<ActionResult> {
  const target = await resolveTarget(action, context, index);
  if (range(target) <= 1) return notScrollable(target);
  if (direction < 0 && target.top <= 1) return result(`${target.note}Already at the top of ${target.name}: ${position(target)}. Nothing moved.`);
  if (direction > 0 && target.top >= range(target) - 1) {
    return result(`${target.note}Already at the bottom of ${target.name}: ${position(target)}. Nothing moved.`);
  }
  const after = await move(action, context, target, { deltaY: direction * target.viewport });
  return result(
    `${target.note}Scrolled ${target.name} ${direction > 0 ? 'down' : 'up'} one page (${Math.round(target.viewport)} px): now at ${position(after)}.`,
  );
}

/** Scrolls the page, or the scroll area of an element, to a percentage of its height. */
export const scrollToPercentAction = defineAction({
  name: 'scroll_to_percent',
  description: 'Scroll the page, or the scroll area holding an element, to a percentage of its height (0 is the top, 100 the bottom).',
  schema: z.object({
    percent: z.number().min(0).max(100).describe('Where to scroll: 0 is the top, 100 the bottom'),
    index: indexParameter,
  }),
  handler: async ({ percent, index }, context) => scrollToPercent('scroll_to_percent', context, index, percent),
});

/** Scrolls the page, or the scroll area of an element, to the top. */
export const scrollToTopAction = defineAction({
  name: 'scroll_to_top',
  description: 'Scroll the page, or the scroll area holding an element, to the top.',
  schema: z.object({ index: indexParameter }),
  handler: async ({ index }, context) => scrollToPercent('scroll_to_top', context, index, 0),
});

/** Scrolls the page, or the scroll area of an element, to the bottom. */
export const scrollToBottomAction = defineAction({
  name: 'scroll_to_bottom',
  description: 'Scroll the page, or the scroll area holding an element, to the bottom.',
  schema: z.object({ index: indexParameter }),
  handler: async ({ index }, context) => scrollToPercent('scroll_to_bottom', context, index, 100),
});

/** Scrolls up by one viewport (or one height of the element's scroll area). */
export const previousPageAction = defineAction({
  name: 'previous_page',
  description: 'Scroll up by one screen: the page, or the scroll area holding an element.',
  schema: z.object({ index: indexParameter }),
  handler: async ({ index }, context) => scrollByPage('previous_page', context, index, -1),
});

/** Scrolls down by one viewport (or one height of the element's scroll area). */
export const nextPageAction = defineAction({
  name: 'next_page',
  description: 'Scroll down by one screen: the page, or the scroll area holding an element.',
  schema: z.object({ index: indexParameter }),
  handler: async ({ index }, context) => scrollByPage('next_page', context, index, 1),
});

/** Scrolls the nth occurrence of some visible text to the middle of the view. */
export const scrollToTextAction = defineAction({
  name: 'scroll_to_text',
  description:
    'Scroll until some visible text is in the middle of the view (case-insensitive; the text may span several elements). Says how many times the text occurs.',
  schema: z.object({
    text: z.string().min(1).max(500).describe('The text to find, as it shows on the page'),
    nth: z.number().int().min(1).default(1).describe('Which occurrence to scroll to, counting from 1 in page order'),
  }),
  handler: async ({ text, nth }, context) => {
    const pattern = textPattern('scroll_to_text', text, { regex: false, caseSensitive: false });
    const frames = await visibleFrames(context);
    const base = { ...pattern, contextChars: 0, maxResults: 0, maxTextChars: maxPageTextChars, timeBudgetMs: matchingBudgetMs };
    const counts: { frame: FrameInfo; count: number }[] = [];
    for (const frame of frames) {
      const counted = await readPageText('scroll_to_text', context, frame, { ...base, mode: 'search', nth: 0 });
      if (counted && counted.total > 0) counts.push({ frame, count: counted.total });
    }
    const total = counts.reduce((sum, entry) => sum + entry.count, 0);
    const quoted = JSON.stringify(text);
    // Not finding the text is an answer, not a failure: the model learns the page lacks it.
    if (total === 0) return result(`The text ${quoted} does not appear in the page's visible text; nothing moved.`);
    if (nth > total) return result(`The text ${quoted} appears only ${total} time${total === 1 ? '' : 's'}, so there is no occurrence ${nth}; nothing moved.`);
    let skipped = 0;
    const holder = counts.find((entry) => {
      if (nth <= skipped + entry.count) return true;
      skipped += entry.count;
      return false;
    }) as { frame: FrameInfo; count: number };
    const scrolled = await readPageText('scroll_to_text', context, holder.frame, { ...base, mode: 'scroll', nth: nth - skipped });
    if (!scrolled?.scrolledTo) return result(`The text ${quoted} changed on the page before it could be scrolled to; read the page again.`);
    await bringFrameIntoView(context, holder.frame);
    await context.driver.waitForSettled({ signal: context.signal });
    const top = (await context.driver.frames({ signal: context.signal })).find((frame) => frame.parentId === undefined);
    const page = top ? await measure('scroll_to_text', context, top, { elementId: null, selector: null, scroll: null }, undefined) : undefined;
    const where = holder.frame.parentId === undefined ? '' : ` in the frame ${holder.frame.url}`;
    const occurrence = total === 1 ? 'its only occurrence' : `occurrence ${nth} of ${total}`;
    const pagePosition = page && page.kind === 'document' ? ` The page is at ${position(page)}.` : '';
    return result(`Scrolled to ${occurrence} of ${quoted} (in a ${scrolled.scrolledTo}${where}).${pagePosition}`);
  },
});

/** Scrolls each frame element on the way from the top page down to `frame` into view. */
async function bringFrameIntoView(context: ActionContext, frame: FrameInfo): Promise<void> {
  const chain: string[] = [];
  const frames = await context.driver.frames({ signal: context.signal });
  const byId = new Map(frames.map((candidate) => [candidate.id, candidate]));
  for (let current = byId.get(frame.id); current?.parentId !== undefined && chain.length <= frames.length; current = byId.get(current.parentId)) {
    chain.push(current.id);
  }
  // Innermost first: bringing a frame into view in its parent does not move the frames above it.
  for (const childId of chain) {
    const fresh = (await context.driver.frames({ signal: context.signal })).find((candidate) => candidate.id === childId);
    if (!fresh?.offset || fresh.parentId === undefined) return;
    await callRuntime(
      context.driver,
      fresh.parentId,
      'scrollFrameIntoView',
      { x: fresh.offset.x, y: fresh.offset.y, width: fresh.size?.width ?? null, height: fresh.size?.height ?? null },
      { signal: context.signal },
    );
  }
}
