// The work on one page of a collection, callable alone: load, survey, interaction if blocked,
// records, "load more" rounds, next pages. It commits nothing: the caller (Collector, worker) does.

import type { ActionRegistry } from '../actions/registry';
import type { PageState } from '../browser/page-state';
import type { BrowserDriver, ResolvedBrowserDriver } from '../browser/types';
import { resolveDriver } from '../dom/driver-defaults';
import { defaultIncludeAttributes, PageStateReader } from '../dom/page-state-reader';
import { BrowserError, URLNotAllowedError, type PlannavError } from '../errors';
import type { ModelCallObserver, ModelRetryOptions } from '../llm/generate-object';
import { toCallError } from '../llm/model-errors';
import type { LLMClient } from '../llm/types';
import { emptyUsage, normalizeUsage, type PriceTable, type TokenUsage } from '../llm/usage';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import { withDeadline } from '../util/deadline';
import { normalizePageUrl } from './frontier';
import { runInteraction } from './interaction';
import { LinkTargets } from './link-targets';
import type { PageExtractor } from './page-extraction';
import { surveyPage, type PageSurvey } from './page-survey';
import type { QueuedPage } from './store';

/** One browser ready to read pages. */
export interface PageSlot {
  readonly raw: BrowserDriver;
  readonly driver: ResolvedBrowserDriver;
  readonly reader: PageStateReader;
  /** The whole address of each link of the reader's latest state, for next pages named by index. */
  readonly links: LinkTargets;
  /** Whether the driver enforces the URL policy itself (a navigation guard is installed). */
  readonly guarded: boolean;
}

/** What reading one page gave, before de-duplication against the run. */
export interface PageRead<TRecord> {
  readonly records: readonly TRecord[];
  readonly invalid: number;
  readonly links: readonly string[];
  readonly loadMore: number;
  readonly interaction: string | undefined;
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
  const driver = resolveDriver(raw);
  const options = { viewportExpansion: -1, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };
  const links = new LinkTargets(options);
  const reader = new PageStateReader(links.watch(driver), options);
  return { raw, driver, reader, links, guarded };
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

/** Best effort: past the deadline the page is read as it is. */
async function settle(slot: PageSlot, signal: AbortSignal): Promise<void> {
  const slow = (): BrowserError => new BrowserError('The page did not settle in time.', { code: 'BROWSER_TIMEOUT', retryable: true });
  await withDeadline(15_000, signal, slow, (bounded) => slot.driver.waitForSettled({ signal: bounded })).catch((error: unknown) => {
    if (signal.aborted || !BrowserError.isInstance(error)) throw error;
  });
}

async function survey<TRecord>(context: PageStepContext<TRecord>, slot: PageSlot, signal: AbortSignal): Promise<{ state: PageState; survey: PageSurvey }> {
  await settle(slot, signal);
  const state = await slot.reader.capture({ screenshot: false, signal });
  assertAllowed(context.urlPolicy, state.url);
  const found = await surveyPage({
    client: context.navigatorLLM,
    state,
    instruction: context.instruction,
    signal,
    retry: context.modelRetry,
    observer: context.navigatorObserver,
  });
  if (found.pageError) throw new BrowserError(`${state.url} is an error page: ${found.pageError}`, { retryable: true });
  return { state, survey: found };
}

/** Reads one page: load, survey, interaction if blocked, records, "load more" rounds, next pages. */
export async function readPage<TRecord>(context: PageStepContext<TRecord>, slot: PageSlot, page: QueuedPage, signal: AbortSignal): Promise<PageRead<TRecord>> {
  const instruction = context.instruction;
  assertAllowed(context.urlPolicy, page.url);
  await slot.driver.goto(page.url, { signal });
  let { state, survey: found } = await survey(context, slot, signal);
  let interaction: string | undefined;
  if (found.blockedBy && context.interactionSteps > 0) {
    interaction = found.blockedBy;
    await runInteraction({
      goal: found.blockedBy,
      instruction,
      maxSteps: context.interactionSteps,
      driver: slot.driver,
      pageReader: slot.reader,
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
    ({ state, survey: found } = await survey(context, slot, signal));
  }
  const links = new Set<string>();
  const addLinks = (surveyed: PageSurvey, surveyedState: PageState): void => {
    for (const link of nextPageLinks(context, surveyed, surveyedState, slot.links, page.url)) links.add(link);
  };
  addLinks(found, state);
  const seenOnPage = new Set<string>();
  const records: TRecord[] = [];
  let invalid = 0;
  // After a "load more" only what the page added is read (the whole page again would cost tokens
  // with the square of the rounds), with a few blocks around it: the records read from those are
  // the ones this page already gave, dropped here, as are all of them when the page is read whole again.
  let read: string | undefined;
  const extract = async (): Promise<number> => {
    await context.checkpoint();
    const extracted = await context.extractor.extract({
      driver: slot.driver,
      client: context.extractionLLM,
      instruction,
      urlPolicy: context.urlPolicy,
      signal,
      since: read,
    });
    read = extracted.html;
    invalid += extracted.invalid;
    let fresh = 0;
    for (const record of extracted.records) {
      const identity = stableJson(record);
      if (seenOnPage.has(identity)) continue;
      seenOnPage.add(identity);
      records.push(record);
      fresh++;
    }
    return fresh;
  };
  await extract();
  let loadMore = 0;
  while (loadMore < context.maxLoadMore) {
    const button = found.loadMoreIndex === null ? undefined : state.elements.get(found.loadMoreIndex);
    if (button) await slot.driver.click(button, { signal });
    else if (found.infiniteScroll) await slot.driver.scroll({ toPercent: 100, signal });
    else break;
    loadMore++;
    await settle(slot, signal);
    const fresh = await extract();
    if (fresh === 0) break;
    ({ state, survey: found } = await survey(context, slot, signal));
    addLinks(found, state);
  }
  return { records, invalid, links: [...links], loadMore, interaction };
}

/**
 * The survey's next pages that may be enqueued: absolute, same host as the page, allowed by the
 * policy. A link named by index is followed to its whole href, which the model's view may not show.
 */
function nextPageLinks<TRecord>(context: PageStepContext<TRecord>, surveyed: PageSurvey, state: PageState, targets: LinkTargets, pageUrl: string): string[] {
  const host = new URL(pageUrl).host;
  const links: string[] = [];
  const enqueue = (url: URL): void => {
    const normalized = normalizePageUrl(url.href);
    const decision = context.urlPolicy.check(normalized);
    if (!decision.allowed) {
      context.warn('LINK_NOT_ALLOWED', `Not enqueued: ${normalized} (${decision.reason}).`);
      return;
    }
    links.push(normalized);
  };
  for (const index of surveyed.nextPageIndices) {
    const element = state.elements.get(index);
    const target = element === undefined ? undefined : targets.targetOf(element);
    const url = target === undefined ? undefined : new URL(target);
    if (url === undefined || url.host !== host) {
      const what =
        element === undefined ? 'not an element of the page' : url === undefined ? 'not a link to a web page' : `a link to another site, ${url.host}`;
      context.warn('NEXT_PAGE_SKIPPED', `Not enqueued: the survey named [${index}] as a next page, which is ${what}.`);
      continue;
    }
    enqueue(url);
  }
  for (const href of surveyed.nextPages) {
    // A link the state shortened in the middle cannot be followed as written.
    if (href.includes('…')) continue;
    let url: URL;
    try {
      url = new URL(href, state.url);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host !== host) continue;
    enqueue(url);
  }
  return links;
}
