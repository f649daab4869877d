// What a survey taught about a listing's template (how to reach the next page, the numbered page
// links, a pager, "load more"), kept per template and found again on its other pages without a model.

import type { ElementRef } from '../browser/types';
import type { PageState } from '../browser/page-state';
import type { LinkTargets } from './link-targets';
import type { PageSurvey } from './page-survey';
import type { ControlLocator } from './store';

/** How a listing template is read, learnt from one survey. */
export interface ListingPlan {
  /** The control that opens the following page; `link` when it is a link to a web address. */
  readonly next?: { readonly control: ControlLocator; readonly kind: 'link' | 'click' } | undefined;
  /** The shape of the addresses of numbered page links ({@link addressShape}), to find them on other pages. */
  readonly pageLinkShape?: string | undefined;
  /** A drop-down that chooses the page. */
  readonly pageSelect?: ControlLocator | undefined;
  /** A button that adds records to the page. */
  readonly loadMore?: ControlLocator | undefined;
  readonly infiniteScroll: boolean;
  /** The document names its following page with `<link rel="next">` (read from each page, no control needed). */
  readonly relNext?: boolean | undefined;
}

/**
 * The template a page belongs to: its host, its path with every run of digits as `#`, and the names
 * of its query parameters. `/list?page=2` and `/list?page=7` are one template; `/list` and
 * `/category/7/books` are others.
 */
export function templateOf(url: string): string {
  const parsed = new URL(url);
  const names = [...new Set([...parsed.searchParams.keys()])].sort();
  return `${parsed.host}${parsed.pathname.replace(/\d+/g, '#')}${names.length > 0 ? `?${names.join('&')}` : ''}`;
}

/** The shape of an address: path and query with every run of digits as `#` (`/list?page=#`). */
export function addressShape(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}${parsed.search}`.replace(/\d+/g, '#');
}

function normalizeText(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Attributes that name a control by themselves (`type`, `role` and most `rel`s only say what kind it is). */
const namingAttributes = ['aria-label', 'title', 'name'];

function namedByAttributes(locator: ControlLocator): boolean {
  return namingAttributes.some((name) => normalizeText(locator.attributes?.[name]) !== '');
}

/** Whether a locator can tell its control from others: a text, a naming attribute, or `rel="next"`. */
export function identifies(locator: ControlLocator): boolean {
  return normalizeText(locator.text) !== '' || namedByAttributes(locator) || /\bnext\b/.test(normalizeText(locator.attributes?.rel));
}

/**
 * Whether `facts` shows the control `locator` describes: same tag and attributes, and the same
 * text unless a naming attribute (a label, a title, a name) names it; an icon's text may change.
 * A locator that names nothing matches nothing: an icon-only button without a label would
 * otherwise match every button of the page.
 */
export function matchesControl(locator: ControlLocator, facts: ControlLocator): boolean {
  if (locator.tag !== facts.tag || !identifies(locator)) return false;
  for (const [name, value] of Object.entries(locator.attributes ?? {})) if (normalizeText(facts.attributes?.[name]) !== normalizeText(value)) return false;
  return namedByAttributes(locator) || normalizeText(facts.text) === normalizeText(locator.text);
}

/** Finds the element of `state` that `locator` describes; with several, the last (a pager repeated above and below a list acts the same). */
export function findControl(locator: ControlLocator, state: PageState, targets: LinkTargets): ElementRef | undefined {
  let found: ElementRef | undefined;
  for (const element of state.elements.values()) {
    const facts = targets.factsOf(element);
    if (facts && matchesControl(locator, facts)) found = element;
  }
  return found;
}

/** The locator of an element: what it showed. Undefined when the element is not of the state. */
export function locatorOf(index: number | null, state: PageState, targets: LinkTargets): ControlLocator | undefined {
  if (index === null) return undefined;
  const element = state.elements.get(index);
  const facts = element === undefined ? undefined : targets.factsOf(element);
  // A control that names nothing cannot be found again.
  return facts && identifies(facts) ? facts : undefined;
}

/** Whether a plan learnt anything that leads on from a page: without it, a page is surveyed. */
export function leadsOn(plan: ListingPlan): boolean {
  return (
    plan.next !== undefined ||
    plan.pageLinkShape !== undefined ||
    plan.pageSelect !== undefined ||
    plan.loadMore !== undefined ||
    plan.infiniteScroll ||
    plan.relNext === true
  );
}

/** The plan a survey of `state` gives; `relNext`: the document names its following page with `<link rel="next">`. */
export function learnPlan(survey: PageSurvey, state: PageState, targets: LinkTargets, relNext = false): ListingPlan {
  const nextElement = survey.nextIndex === null ? undefined : state.elements.get(survey.nextIndex);
  const nextControl = locatorOf(survey.nextIndex, state, targets);
  const next =
    nextElement && nextControl
      ? { control: nextControl, kind: targets.targetOf(nextElement) === undefined ? ('click' as const) : ('link' as const) }
      : undefined;
  // Numbered page links share one shape of address; it finds them on the template's other pages.
  const shapes = new Map<string, number>();
  for (const index of survey.pageIndices) {
    const element = state.elements.get(index);
    const target = element === undefined ? undefined : targets.targetOf(element);
    if (target !== undefined) shapes.set(addressShape(target), (shapes.get(addressShape(target)) ?? 0) + 1);
  }
  for (const href of survey.nextPages) {
    if (!URL.canParse(href, state.url)) continue;
    const shape = addressShape(new URL(href, state.url).href);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  }
  const pageLinkShape = [...shapes].sort((a, b) => b[1] - a[1])[0]?.[0];
  return {
    next,
    pageLinkShape,
    pageSelect: locatorOf(survey.pageSelectIndex, state, targets),
    loadMore: locatorOf(survey.loadMoreIndex, state, targets),
    infiniteScroll: survey.infiniteScroll,
    ...(relNext ? { relNext } : {}),
  };
}

/** The links of `state` whose address has the plan's page-link shape. */
export function pageLinksOf(plan: ListingPlan, state: PageState, targets: LinkTargets): string[] {
  if (plan.pageLinkShape === undefined) return [];
  const links: string[] = [];
  for (const element of state.elements.values()) {
    const target = targets.targetOf(element);
    if (target !== undefined && addressShape(target) === plan.pageLinkShape) links.push(target);
  }
  return links;
}
