// The work on one page of a collection, callable alone: load (or the way there), the listing's
// plan (a survey only for a template not seen, or when the plan no longer holds), interaction if
// blocked, records, "load more" rounds, next pages. It commits nothing: the caller (Collector, worker) does.

import type { ActionRegistry } from '../actions/registry';
import type { PageState } from '../browser/page-state';
import type { BrowserDriver, ResolvedBrowserDriver } from '../browser/types';
import { defaultIncludeAttributes, type PageStateReader } from '../dom/page-state-reader';
import { BrowserError, URLNotAllowedError, type PlannavError } from '../errors';
import type { ModelCallObserver, ModelRetryOptions } from '../llm/generate-object';
import { toCallError } from '../llm/model-errors';
import type { LLMClient } from '../llm/types';
import { emptyUsage, normalizeUsage, type PriceTable, type TokenUsage } from '../llm/usage';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import { sleep } from '../util/abort';
import { BrowserSession, collectionTimeouts, readerSettings } from '../session/index';
import { normalizePageUrl } from './frontier';
import { runInteraction } from './interaction';
import { LinkTargets } from './link-targets';
import { addressShape, findControl, learnPlan, leadsOn, pageLinksOf, templateOf, type ListingPlan } from './listing-plan';
import { describeIssues, type DetailPageText, type PageExtractor, type RejectedItem } from './page-extraction';
import { assertPageAnswered } from './page-retry';
import { surveyPage, type PageSurvey } from './page-survey';
import type { PageWayStep, QueuedPage } from './store';
import { callRuntime } from '../dom/page-runtime';
import { dropdownAnswerSchema } from '../actions/builtin/dropdown';
import { elementArgument } from '../actions/builtin/element-script';

/** One browser ready to read pages. */
export interface PageSlot {
  readonly raw: BrowserDriver;
  readonly driver: ResolvedBrowserDriver;
  readonly reader: PageStateReader;
  /** The whole address of each link of the reader's latest state, for next pages named by index. */
  readonly links: LinkTargets;
  /** Whether the driver enforces the URL policy itself (a navigation guard is installed). */
  readonly guarded: boolean;
  /** The slot's browser session: settle-then-read, the deadlines, the agents' context. */
  readonly session: BrowserSession;
}

/** A page the page step found: a listing page to read next, or a record's own page. */
export interface FoundPage {
  readonly url: string;
  readonly way?: QueuedPage['way'];
  /** A sub-listing (a category): a batch of its own. */
  readonly listing?: boolean | undefined;
}

/** What reading one page gave, before de-duplication against the run. */
export interface PageRead<TRecord> {
  readonly records: readonly TRecord[];
  /** Records the schema rejected, with what the model wrote and why. */
  readonly rejected: readonly RejectedItem[];
  readonly invalid: number;
  readonly links: readonly string[];
  /** Further pages: by address, by the way there (a script pager), and sub-listings. */
  readonly found: readonly FoundPage[];
  /** The page the tab now shows after clicking the listing's next control, when it did: read it next without loading it again. */
  readonly continuation?: FoundPage | undefined;
  readonly loadMore: number;
  readonly interaction: string | undefined;
  /** Model surveys made on this page (0 when the template's plan held). */
  readonly surveys: number;
}

/** A model call of the page step, for usage accounting. */
export interface PageModelCall {
  readonly provider: string;
  readonly model: string;
  readonly usage: TokenUsage;
  readonly durationMs: number;
  readonly error?: PlannavError | undefined;
}

/** What the page step needs from the run that calls it. */
export interface PageStepContext<TRecord> {
  /** The instruction in force when the page starts. */
  readonly instruction: string;
  readonly interactionSteps: number;
  readonly maxLoadMore: number;
  readonly modelRetry: ModelRetryOptions;
  readonly prices: PriceTable | undefined;
  readonly urlPolicy: UrlPolicy;
  readonly secrets: SecretStore;
  readonly registry: ActionRegistry;
  readonly extractor: PageExtractor<TRecord>;
  readonly navigatorLLM: LLMClient;
  readonly extractionLLM: LLMClient;
  /** Observes the survey's model calls. */
  readonly navigatorObserver: ModelCallObserver;
  /** Counts a model call of the interaction task. */
  readonly onInteractionCall: (call: PageModelCall) => void;
  /** Waits while the run is paused; rejects when it is cancelled. */
  readonly checkpoint: () => Promise<boolean>;
  /** Something worth knowing that changes nothing (a link the policy denies). */
  readonly warn: (code: string, message: string) => void;
  /** What was learnt of each listing template, shared by the run's pages; without it every page is surveyed. */
  readonly plans?: Map<string, ListingPlan> | undefined;
}

/** JSON with sorted keys: the same record always gives the same text, whatever its key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** A slot over `raw`: the whole page is read, since pagination and "load more" buttons sit below the fold. */
export function pageSlot(raw: BrowserDriver, guarded: boolean): PageSlot {
  // `rel` too: a link marked rel="next" is a pager's.
  const options = readerSettings({ viewportExpansion: -1, includeAttributes: [...defaultIncludeAttributes, 'rel'] });
  const links = new LinkTargets(options);
  const session = new BrowserSession(raw, { reader: options, watch: (resolved) => links.watch(resolved), timeouts: collectionTimeouts });
  return { raw, driver: session.driver, reader: session.reader, links, guarded, session };
}

/** The extraction model with each call's usage counted (the extract_content action reports none itself). */
export function countingClient(llm: LLMClient, onCall: (call: PageModelCall) => void): LLMClient {
  return {
    specificationVersion: 'v1',
    provider: llm.provider,
    model: llm.model,
    supportsImages: llm.supportsImages,
    generate: async (request) => {
      const started = Date.now();
      try {
        const result = await llm.generate(request);
        onCall({ provider: llm.provider, model: llm.model, usage: normalizeUsage(result.usage), durationMs: Date.now() - started });
        return result;
      } catch (error) {
        const failure = toCallError(error, request.signal);
        onCall({ provider: llm.provider, model: llm.model, usage: emptyUsage, durationMs: Date.now() - started, error: failure });
        throw error;
      }
    },
  };
}

function assertAllowed(urlPolicy: UrlPolicy, url: string): void {
  const decision = urlPolicy.check(url);
  if (!decision.allowed) throw new URLNotAllowedError(url, `The URL policy denies ${url}: ${decision.reason}.`);
}

/** Rounds of "load more" or scrolling that added nothing, tried again before the page is taken as whole. */
const idleRetries = 2;

/** Best effort: past the deadline the page is read as it is. */
function settle(slot: PageSlot, signal: AbortSignal): Promise<void> {
  return slot.session.settle(signal);
}

async function capture(context: PageStepContext<unknown>, slot: PageSlot, signal: AbortSignal): Promise<PageState> {
  const state = await slot.session.readPage({ signal });
  assertAllowed(context.urlPolicy, state.url);
  return state;
}

async function survey<TRecord>(context: PageStepContext<TRecord>, state: PageState, signal: AbortSignal): Promise<PageSurvey> {
  const found = await surveyPage({
    client: context.navigatorLLM,
    state,
    instruction: context.instruction,
    signal,
    retry: context.modelRetry,
    observer: context.navigatorObserver,
  });
  if (found.pageError) throw new BrowserError(`${state.url} is an error page: ${found.pageError}`, { retryable: true });
  return found;
}

/**
 * The address of a page reached by clicking: the tab's, or, when the address did not change, its
 * origin's with the steps in the fragment: `#plannav-step=N` for N clicks of the pager, the steps
 * written out when a pager drop-down's option is among them (so two ways never share an address).
 */
export function wayAddress(from: string, steps: readonly PageWayStep[], shown: string): string {
  const origin = normalizePageUrl(from);
  const now = normalizePageUrl(shown);
  if (now !== origin) return now;
  if (steps.every((step) => step.action === 'click')) return `${origin}#plannav-step=${steps.length}`;
  return `${origin}#plannav-way=${steps.map((step) => (step.action === 'click' ? 'next' : `select:${encodeURIComponent(step.option ?? '')}`)).join(',')}`;
}

/** Takes one step of a way on the page as it is: finds its control again and clicks it or chooses its option. */
async function takeStep(context: PageStepContext<unknown>, slot: PageSlot, step: PageWayStep, signal: AbortSignal): Promise<void> {
  const state = await capture(context, slot, signal);
  const element = findControl(step.control, state, slot.links);
  if (!element)
    throw new BrowserError(`The control "${step.control.text ?? step.control.tag}" that led to this page is not on ${state.url} any more.`, {
      retryable: true,
    });
  if (step.action === 'select') await slot.driver.selectOption(element, step.option ?? '', { signal });
  else await slot.driver.click(element, { signal });
  await settle(slot, signal);
}

/** Loads the page: its address, or the way there (the address, then each step), unless the tab already shows it. */
export async function arrive<TRecord>(context: PageStepContext<TRecord>, slot: PageSlot, page: QueuedPage, signal: AbortSignal, there: boolean): Promise<void> {
  if (there) return;
  // A page whose click changed the address is loaded by that address; one without its own is reached by the way there.
  const way = page.url.includes('#plannav-') ? page.way : undefined;
  const address = way?.from ?? page.url;
  assertAllowed(context.urlPolicy, address);
  assertPageAnswered(address, (await slot.driver.goto(address, { signal })) ?? undefined);
  for (const step of way?.steps ?? []) {
    await context.checkpoint();
    await takeStep(context, slot, step, signal);
  }
}

/**
 * Reads one page: load (or the way there, unless `there`), the template's plan or a survey,
 * interaction if blocked, records, "load more" rounds, next pages; with a pager run by script, the
 * tab is left on the next page (`continuation`).
 */
export async function readPage<TRecord>(
  context: PageStepContext<TRecord>,
  slot: PageSlot,
  page: QueuedPage,
  signal: AbortSignal,
  there = false,
): Promise<PageRead<TRecord>> {
  const instruction = context.instruction;
  assertAllowed(context.urlPolicy, page.url.replace(/#.*$/, ''));
  await arrive(context, slot, page, signal, there);
  let state = await capture(context, slot, signal);
  // A page reached by a click or a form has no goto answer: its document's own status tells an error page.
  const facts = await documentFacts(slot, signal);
  if (there || page.url.includes('#plannav-')) assertPageAnswered(state.url, facts.status > 0 ? { status: facts.status, headers: {} } : undefined);
  const template = templateOf(state.url);
  const plans = context.plans ?? new Map<string, ListingPlan>();
  let plan = plans.get(template);
  let surveys = 0;
  let found: PageSurvey | undefined;
  let interaction: string | undefined;
  /** Surveys the page as it is now. */
  const resurvey = async (): Promise<PageSurvey> => {
    state = await capture(context, slot, signal);
    surveys++;
    return survey(context, state, signal);
  };
  /**
   * Gets past what blocks the records: the one button the survey named (a cookie wall's
   * "Accept") first, the Navigator in a short task when that was not enough.
   */
  const unblock = async (blocked: PageSurvey): Promise<PageSurvey> => {
    const button = blocked.blockedByIndex === null ? undefined : state.elements.get(blocked.blockedByIndex);
    let now = blocked;
    if (button) {
      await slot.driver.click(button, { signal });
      await settle(slot, signal);
      now = await resurvey();
      if (!now.blockedBy) return now;
    }
    await runInteraction({
      goal: now.blockedBy,
      instruction,
      maxSteps: context.interactionSteps,
      session: slot.session,
      registry: context.registry,
      navigatorLLM: context.navigatorLLM,
      extractionLLM: context.extractionLLM,
      urlPolicy: context.urlPolicy,
      driverGuarded: slot.guarded,
      secrets: context.secrets,
      signal,
      retry: context.modelRetry,
      prices: context.prices,
      onModelCall: (call) => context.onInteractionCall(call),
      checkpoint: () => context.checkpoint(),
    });
    return resurvey();
  };
  /** A fresh survey: it says whether the page is an error page or blocked, and renews the template's plan. */
  const freshSurvey = async (): Promise<void> => {
    surveys++;
    found = await survey(context, state, signal);
    if (found.blockedBy && context.interactionSteps > 0 && interaction === undefined) {
      interaction = found.blockedBy;
      found = await unblock(found);
    }
    plan = learnPlan(found, state, slot.links, facts.next.length > 0);
    // A plan that learnt no way on (a one-page listing, a category index) is not reused: the
    // template's other pages may paginate, and only a survey finds how.
    if (leadsOn(plan)) plans.set(templateOf(state.url), plan);
  };
  if (!plan) await freshSurvey();

  const seenOnPage = new Set<string>();
  const records: TRecord[] = [];
  const rejected: RejectedItem[] = [];
  // After a "load more" only what the page added is read (the whole page again would cost tokens
  // with the square of the rounds), with a few blocks around it: the records read from those are
  // the ones this page already gave, dropped here, as are all of them when the page is read whole again.
  let read: string | undefined;
  const extract = async (): Promise<number> => {
    await context.checkpoint();
    const shape = plan?.pageLinkShape;
    const extracted = await context.extractor.extract({
      driver: slot.driver,
      client: context.extractionLLM,
      instruction,
      urlPolicy: context.urlPolicy,
      signal,
      since: read,
      pagerLink: shape === undefined ? undefined : (url) => addressShape(url) === shape,
    });
    read = extracted.html;
    let fresh = 0;
    for (const record of extracted.records) {
      const identity = stableJson(record);
      if (seenOnPage.has(identity)) continue;
      seenOnPage.add(identity);
      records.push(record);
      fresh++;
    }
    for (const item of extracted.rejected) {
      const identity = stableJson(item.data);
      if (seenOnPage.has(identity)) continue;
      seenOnPage.add(identity);
      rejected.push(item);
      fresh++;
    }
    return fresh;
  };
  await extract();
  // The cheap check that a reused plan still holds: the page gave records, and the plan's next
  // control (or its document's rel=next link) is on it. Otherwise a fresh survey says what the page is (an error page, a wall, the
  // last page, another template).
  if (
    found === undefined &&
    (records.length + rejected.length === 0 ||
      (plan?.next !== undefined && !findControl(plan.next.control, state, slot.links)) ||
      (plan?.relNext === true && facts.next.length === 0))
  ) {
    await freshSurvey();
    if (records.length + rejected.length === 0 || interaction !== undefined) {
      read = undefined;
      await extract();
    }
  }
  const current = plan as ListingPlan;

  let loadMore = 0;
  let idleRounds = 0;
  while (loadMore < context.maxLoadMore) {
    const button = current.loadMore ? findControl(current.loadMore, state, slot.links) : undefined;
    if (button) await slot.driver.click(button, { signal });
    else if (current.infiniteScroll) await slot.driver.scroll({ toPercent: 100, signal });
    else break;
    loadMore++;
    await settle(slot, signal);
    const fresh = await extract();
    state = await capture(context, slot, signal);
    if (fresh > 0) {
      idleRounds = 0;
      continue;
    }
    // A round that added nothing may have failed for a moment (the page's own request): with the
    // button still there, or on a scrolling page, it is tried again after a pause, twice at most.
    idleRounds++;
    const stillThere = current.loadMore !== undefined && findControl(current.loadMore, state, slot.links) !== undefined;
    if (idleRounds > idleRetries || (!stillThere && !current.infiniteScroll)) break;
    await sleep(idleRounds * 1000, signal);
  }

  const pages = nextPages(context, current, found, state, loadMore > 0 ? (await documentFacts(slot, signal)).next : facts.next, slot.links, page);
  // The listing's other pages share its plan (the first page's address often has a template of its
  // own, `/list` beside `/list?page=2`): a page where it does not hold is surveyed by the cheap check.
  if (leadsOn(current)) {
    for (const other of pages) if (!other.listing && other.way === undefined && !plans.has(templateOf(other.url))) plans.set(templateOf(other.url), current);
  }
  let continuation: FoundPage | undefined;
  const next = current.next && current.next.kind === 'click' ? findControl(current.next.control, state, slot.links) : undefined;
  if (next && current.next) {
    // A pager run by script: the next page has no address to load, so the tab goes there now and
    // the caller reads it next; a resumed run gets there by the same way.
    const from = page.way?.from ?? page.url;
    const steps: PageWayStep[] = [...(page.way?.steps ?? []), { action: 'click', control: current.next.control }];
    await slot.driver.click(next, { signal });
    await settle(slot, signal);
    const shown = await slot.driver.currentUrl({ signal });
    const decision = context.urlPolicy.check(shown);
    // A pager that leads to another site, or to an address the policy denies, is not followed.
    if (new URL(shown).host !== new URL(from).host || !decision.allowed) {
      context.warn('NEXT_PAGE_SKIPPED', `Not followed: the listing's next control led to ${shown}, ${decision.allowed ? 'another site' : decision.reason}.`);
    } else {
      continuation = { url: wayAddress(from, steps, shown), way: { from, steps } };
    }
  }
  if (current.pageSelect && !page.way?.steps.some((step) => step.action === 'select')) {
    // A pager drop-down: each of its other options is a page, reached from this one.
    pages.push(...(await selectPages(slot, current, state, page, signal)));
  }
  return {
    records,
    rejected,
    invalid: rejected.length,
    links: pages.filter((found) => found.way === undefined && !found.listing).map((found) => found.url),
    found: pages,
    continuation,
    loadMore,
    interaction,
    surveys,
  };
}

/**
 * What the top frame's markup says: the addresses it names as its next page (`<link rel="next">`)
 * and its document's HTTP status (0 when unknown); nothing when it cannot say.
 */
async function documentFacts(slot: PageSlot, signal: AbortSignal): Promise<{ next: string[]; status: number }> {
  try {
    const [top] = await slot.driver.frames({ signal });
    if (!top) return { next: [], status: 0 };
    const answer = (await callRuntime(slot.driver, top.id, 'nextLinks', undefined as never, { signal })) as { next?: unknown; status?: unknown } | null;
    const next = Array.isArray(answer?.next) ? answer.next.filter((href): href is string => typeof href === 'string') : [];
    return { next, status: typeof answer?.status === 'number' ? answer.status : 0 };
  } catch (error) {
    if (signal.aborted) throw error;
    return { next: [], status: 0 };
  }
}

/** The options of the plan's pager drop-down other than the one shown, each a page reached from `page`. */
async function selectPages(slot: PageSlot, plan: ListingPlan, state: PageState, page: QueuedPage, signal: AbortSignal): Promise<FoundPage[]> {
  const element = plan.pageSelect ? findControl(plan.pageSelect, state, slot.links) : undefined;
  if (!element || !plan.pageSelect) return [];
  const raw = await callRuntime(
    slot.driver,
    element.frameId,
    'readDropdown',
    { ...elementArgument(element), register: false, anyVisible: false, filter: null },
    { signal },
  );
  const answer = dropdownAnswerSchema.safeParse(raw);
  if (!answer.success || answer.data.status !== 'ok') return [];
  const from = page.way?.from ?? page.url;
  return answer.data.options
    .filter((option) => !option.selected && !option.disabled)
    .map((option) => ({
      url: wayAddress(from, [{ action: 'select', control: plan.pageSelect as NonNullable<ListingPlan['pageSelect']>, option: option.text }], from),
      way: { from, steps: [{ action: 'select' as const, control: plan.pageSelect as NonNullable<ListingPlan['pageSelect']>, option: option.text }] },
    }));
}

/**
 * The next pages that may be enqueued: the page's `rel="next"` addresses, the plan's next link and
 * numbered page links, the survey's links by index or href, and its sub-listings; absolute, same
 * host as the page, allowed by the policy.
 */
function nextPages<TRecord>(
  context: PageStepContext<TRecord>,
  plan: ListingPlan,
  surveyed: PageSurvey | undefined,
  state: PageState,
  relNext: readonly string[],
  targets: LinkTargets,
  page: QueuedPage,
): FoundPage[] {
  const host = new URL(page.url).host;
  const found: FoundPage[] = [];
  const seen = new Set<string>();
  const add = (href: string, listing = false): void => {
    let url: URL;
    try {
      url = new URL(href, state.url);
    } catch {
      return;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host !== host) return;
    const normalized = normalizePageUrl(url.href);
    if (seen.has(normalized)) return;
    seen.add(normalized);
    const decision = context.urlPolicy.check(normalized);
    if (!decision.allowed) {
      context.warn('LINK_NOT_ALLOWED', `Not enqueued: ${normalized} (${decision.reason}).`);
      return;
    }
    found.push(listing ? { url: normalized, listing: true } : { url: normalized });
  };
  for (const href of relNext) add(href);
  if (plan.next?.kind === 'link') {
    const element = findControl(plan.next.control, state, targets);
    const target = element === undefined ? undefined : targets.targetOf(element);
    if (target !== undefined) add(target);
  }
  for (const href of pageLinksOf(plan, state, targets)) add(href);
  if (surveyed) {
    for (const index of [...surveyed.pageIndices, ...surveyed.listingIndices]) {
      const element = state.elements.get(index);
      const target = element === undefined ? undefined : targets.targetOf(element);
      const elsewhere = target === undefined ? undefined : new URL(target).host;
      if (target === undefined || elsewhere !== host) {
        const what =
          element === undefined ? 'not an element of the page' : target === undefined ? 'not a link to a web page' : `a link to another site, ${elsewhere}`;
        context.warn('NEXT_PAGE_SKIPPED', `Not enqueued: the survey named [${index}] as a page of the listing, which is ${what}.`);
        continue;
      }
      add(target, surveyed.listingIndices.includes(index));
    }
    for (const href of surveyed.nextPages) if (!href.includes('…')) add(href);
  }
  return found;
}

/** What reading a record's own page gave: the record completed, or why it could not be. */
export interface DetailRead<TRecord> {
  readonly record?: TRecord | undefined;
  readonly rejected?: RejectedItem | undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  const text = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().toLowerCase() : JSON.stringify(value));
  return a !== undefined && a !== null && b !== undefined && b !== null && text(a) === text(b);
}

/** The schema a record's own page completes against. */
export interface RecordSchema<TRecord> {
  safeParse(
    value: unknown,
  ): { success: true; data: TRecord } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Loads a record's own page, settled and checked against the URL policy where it ended. */
export async function openDetailPage<TRecord>(context: PageStepContext<TRecord>, slot: PageSlot, page: QueuedPage, signal: AbortSignal): Promise<void> {
  await arrive(context, slot, page, signal, false);
  await settle(slot, signal);
  // A record's own page that redirected elsewhere is checked like any page.
  assertAllowed(context.urlPolicy, await slot.driver.currentUrl({ signal }));
}

/** Loads a record's own page and reads its text for a shared extraction call. */
export async function loadDetailPage<TRecord>(
  context: PageStepContext<TRecord>,
  slot: PageSlot,
  page: QueuedPage,
  signal: AbortSignal,
): Promise<DetailPageText> {
  await openDetailPage(context, slot, page, signal);
  return context.extractor.readText({ driver: slot.driver, client: context.extractionLLM, urlPolicy: context.urlPolicy, signal });
}

/** The instruction for a record's own page read alone. */
export const detailInstruction = (instruction: string): string =>
  `${instruction}\nThis page is one record's own page: give that record, with every field the page shows.`;

/**
 * Reads the record's own page the tab shows alone (a page too long to share a call: read in parts).
 */
export async function extractDetailAlone<TRecord>(context: PageStepContext<TRecord>, slot: PageSlot, signal: AbortSignal): Promise<unknown[]> {
  const extracted = await context.extractor.extract({
    driver: slot.driver,
    client: context.extractionLLM,
    instruction: detailInstruction(context.instruction),
    single: true,
    urlPolicy: context.urlPolicy,
    signal,
  });
  return [...extracted.records, ...extracted.rejected.map((item) => item.data)];
}

/**
 * Completes the record the listing gave (`page.partial`) from what its own page gave: the fields
 * it lacks come from the page's record that agrees with it the most (at least half of the listed
 * fields equal; never another record's), the listing's own fields are kept. The whole is checked
 * against the schema.
 */
export function completeRecord<TRecord>(page: QueuedPage, found: readonly unknown[], schema: RecordSchema<TRecord>): DetailRead<TRecord> {
  const partial = page.partial ?? {};
  const candidates = found.filter((candidate): candidate is Record<string, unknown> => typeof candidate === 'object' && candidate !== null);
  const listed = Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined && value !== null && value !== ''));
  // A related item sharing a currency or a brand is another record, whose fields are never taken.
  const needed = Math.max(1, Math.ceil(Object.keys(listed).length / 2));
  let best: Record<string, unknown> | undefined;
  let bestShared = needed - 1;
  for (const candidate of candidates) {
    const shared = Object.entries(listed).filter(([name, value]) => sameValue(candidate[name], value)).length;
    if (shared > bestShared) {
      best = candidate;
      bestShared = shared;
    }
  }
  const merged = { ...(best ?? {}), ...listed };
  const checked = schema.safeParse(merged);
  if (checked.success) return { record: checked.data };
  const issues = describeIssues(checked.error.issues);
  const reason = best === undefined ? `its own page ${page.url} shows no record that matches it; ${issues}` : issues;
  return { rejected: { data: merged, reason } };
}
