// How the Collector reads records' own pages: one slot loads the own pages ready in the queue one
// after another, then asks for all their records in one extraction call. It commits through the Collector.

import type { ResolvedCollectOptions } from './options';
import type { DetailPageText } from './page-extraction';
import {
  completeRecord,
  extractDetailAlone,
  loadDetailPage,
  openDetailPage,
  type DetailRead,
  type PageSlot,
  type PageStepContext,
  type RecordSchema,
} from './page-step';
import type { QueuedPage } from './store';

/** Records' own pages read in one extraction call, unless `details.perCall` says otherwise. */
const defaultDetailsPerCall = 12;
/** The characters of one extraction part, unless `maxChunkChars` says otherwise (the extract_content action's default). */
const defaultChunkChars = 30_000;

/** What reading own pages needs of the run. */
export interface DetailReader<TRecord> {
  readonly slot: PageSlot;
  readonly details: ResolvedCollectOptions['details'];
  readonly maxChunkChars: number | undefined;
  readonly schema: RecordSchema<TRecord>;
  context(): PageStepContext<TRecord>;
  /** One extraction call for the records of these pages' texts. */
  extract(pages: readonly DetailPageText[], signal: AbortSignal): Promise<readonly (readonly unknown[])[]>;
  /** The next own page ready in the queue, if one is and the run may start it. */
  next(): Promise<QueuedPage | undefined>;
  started(page: QueuedPage, attempt: number): void;
  /** The page is loaded: its host has room for the next one. */
  loaded(page: QueuedPage): void;
  /** One attempt within the page deadline; undefined when it failed (the run has dealt with it). */
  attempt<T>(pages: readonly QueuedPage[], step: (signal: AbortSignal) => Promise<T>, what?: string): Promise<T | undefined>;
  commit(page: QueuedPage, attempt: number, read: DetailRead<TRecord>, durationMs: number): Promise<void>;
}

/**
 * Reads records' own pages, starting with `first`: loads the own pages ready in the queue one after
 * another (up to `details.perCall`, and the characters of one extraction part), then asks for all
 * their records in one call. A page too long to share a call is read alone.
 */
export async function readDetails<TRecord>(reader: DetailReader<TRecord>, first: QueuedPage): Promise<void> {
  const { slot, schema } = reader;
  const perCall = (typeof reader.details === 'object' ? reader.details.perCall : undefined) ?? defaultDetailsPerCall;
  const budget = reader.maxChunkChars ?? defaultChunkChars;
  const group: { page: QueuedPage; attempt: number; started: number; text: DetailPageText }[] = [];
  let chars = 0;
  for (let page: QueuedPage | undefined = first; page !== undefined; page = group.length < perCall && chars < budget ? await reader.next() : undefined) {
    const attempt = (page.attempts ?? 0) + 1;
    const started = Date.now();
    reader.started(page, attempt);
    const loaded = page;
    if (perCall === 1) {
      // Each page alone: loaded and read by the extraction in one attempt, its text read once.
      const found = await reader.attempt([page], async (signal) => {
        await openDetailPage(reader.context(), slot, loaded, signal);
        return extractDetailAlone(reader.context(), slot, signal);
      });
      if (found !== undefined) await reader.commit(page, attempt, completeRecord(page, found, schema), Date.now() - started);
      continue;
    }
    const text = await reader.attempt([page], (signal) => loadDetailPage(reader.context(), slot, loaded, signal));
    if (text === undefined) continue;
    if (text.markdown.length > budget) {
      // Too long to share a call: read again in parts (rare; the text read above is not sent).
      const found = await reader.attempt([page], (signal) => extractDetailAlone(reader.context(), slot, signal));
      if (found !== undefined) await reader.commit(page, attempt, completeRecord(page, found, schema), Date.now() - started);
      continue;
    }
    // Loaded: while its records are asked for, the host has room for the next page.
    reader.loaded(page);
    group.push({ page, attempt, started, text });
    chars += text.markdown.length;
  }
  if (group.length === 0) return;
  const pages = group.map((entry) => entry.page);
  const found = await reader.attempt(
    pages,
    (signal) =>
      reader.extract(
        group.map((entry) => entry.text),
        signal,
      ),
    `the records of ${pages.length} record page${pages.length === 1 ? '' : 's'}`,
  );
  if (found === undefined) return;
  for (const [index, entry] of group.entries()) {
    await reader.commit(entry.page, entry.attempt, completeRecord(entry.page, found[index] ?? [], schema), Date.now() - entry.started);
  }
}
