// The collection engine alone, without a browser or Redis: the failure budget per batch, the
// progress check every `checkEvery` listing pages, the counters, the end reason and the resume state.
import { describe, expect, it } from 'vitest';
import { ChatModelAuthError, ConfigError, PlannavError } from '../errors';
import { emptyUsage } from '../llm/usage';
import { CollectionEngine, seedPages } from './collection-engine';

function engine(options: Partial<ConstructorParameters<typeof CollectionEngine>[0]> = {}): CollectionEngine {
  return new CollectionEngine({ instruction: 'every item', maxFailures: 3, checkEvery: 2, maxRecords: undefined, ...options });
}

const done = (batch: string, records = 1, extra: { kind?: 'detail'; duplicates?: number; invalid?: number; rejected?: number } = {}) => ({
  batch,
  records,
  duplicates: extra.duplicates ?? 0,
  invalid: extra.invalid ?? 0,
  rejected: extra.rejected ?? 0,
  kind: extra.kind,
});
const failed = (batch: string, url = `https://a.test/${batch}`) => ({ url, batch, error: 'HTTP 500', invalid: 0, rejected: 0, kind: undefined });

describe('CollectionEngine: the failure budget', () => {
  it('gives up a batch at its maxFailures-th failure in a row, once; a page done in between starts the count again', () => {
    const run = engine({ maxFailures: 3 });
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 1, abandoned: false });
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 2, abandoned: false });
    run.pageDone(done('a'));
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 1, abandoned: false });
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 2, abandoned: false });
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 3, abandoned: true });
    expect(run.batch('a').abandoned).toBe(true);
    // Given up already: a later failure does not give it up again.
    expect(run.pageFailed(failed('a'))).toEqual({ consecutiveFailures: 4, abandoned: false });
    expect(run.counters.pagesFailed).toBe(6);
  });

  it('counts each batch on its own: failures of another batch do not use up this one’s budget', () => {
    const run = engine({ maxFailures: 2 });
    run.pageFailed(failed('a'));
    run.pageFailed(failed('b'));
    run.pageDone(done('b'));
    expect(run.pageFailed(failed('a')).abandoned).toBe(true);
    expect(run.batch('b')).toEqual({ failures: 0, abandoned: false });
    expect(run.summary({ pagesQueued: 0, durationMs: 1 }).batchesAbandoned).toBe(1);
  });

  it('a batch queued again starts with a full budget', () => {
    const run = engine({ maxFailures: 1 });
    expect(run.pageFailed(failed('a')).abandoned).toBe(true);
    run.resetBatch('a');
    expect(run.batch('a')).toEqual({ failures: 0, abandoned: false });
    expect(run.pageFailed(failed('a')).abandoned).toBe(true);
  });

  it('tells the check only the latest five failures', () => {
    const run = engine({ maxFailures: 100 });
    for (let index = 1; index <= 7; index++) run.pageFailed(failed('a', `https://a.test/${index}`));
    expect(run.progress(7, []).recentFailures.map((failure) => failure.url)).toEqual([3, 4, 5, 6, 7].map((index) => `https://a.test/${index}`));
  });
});

describe('CollectionEngine: counters', () => {
  it('counts done, empty, records, duplicates, invalid, rejected and detail pages; abandoned pages and retries apart', () => {
    const run = engine();
    run.pageDone(done('a', 2, { duplicates: 1, invalid: 1, rejected: 1 }));
    run.pageDone(done('a', 0));
    run.pageDone(done('d', 1, { kind: 'detail' }));
    run.pageFailed({ ...failed('a'), invalid: 1, rejected: 1 });
    run.pagesAbandoned(3);
    run.retried();
    expect(run.counters).toEqual({
      pagesDone: 3,
      pagesFailed: 1,
      pagesEmpty: 1,
      records: 3,
      duplicates: 1,
      invalid: 2,
      pagesAbandoned: 3,
      retries: 1,
      rejected: 2,
      detailPages: 1,
    });
  });

  it('keeps the latest records as the check’s sample, as many as sampleSize', () => {
    const run = engine({ sampleSize: 2 });
    for (const id of [1, 2, 3]) run.keepSample({ id });
    expect(run.progress(0, []).sample).toEqual([{ id: 2 }, { id: 3 }]);
  });

  it('records left under maxRecords: none once it is reached, and the run stops with max-records', () => {
    const run = engine({ maxRecords: 3 });
    expect(run.recordsLeft()).toBe(3);
    run.pageDone(done('a', 2));
    expect(run.recordsLeft()).toBe(1);
    expect(run.stopping).toBeUndefined();
    run.pageDone(done('a', 1));
    expect(run.recordsLeft()).toBe(0);
    expect(run.stopping).toEqual({ reason: 'max-records', message: undefined });
    expect(engine().recordsLeft()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('CollectionEngine: progress checks', () => {
  it('is due every checkEvery listing pages, done or failed; records’ own pages do not count', () => {
    const run = engine({ checkEvery: 2 });
    run.pageDone(done('a'));
    run.pageDone(done('d', 1, { kind: 'detail' }));
    expect(run.checkDue()).toBe(false);
    run.pageFailed(failed('a'));
    expect(run.checkDue()).toBe(true);
    expect(run.startCheck()).toBe(3);
    expect(run.checkDue()).toBe(false);
    run.pageDone(done('a'));
    run.pageDone(done('a'));
    expect(run.checkDue()).toBe(true);
  });

  it('a check not run when due is due at the next page; none once the run stops or fails', () => {
    const run = engine({ checkEvery: 1 });
    run.pageDone(done('a'));
    run.pageDone(done('a'));
    expect(run.checkDue()).toBe(true);
    run.fail(new PlannavError('UNEXPECTED_ERROR', 'broken'));
    expect(run.checkDue()).toBe(false);
    const stopped = engine({ checkEvery: 1 });
    stopped.pageDone(done('a'));
    stopped.applyCheck({ pages: 1, decision: 'stop', reason: 'enough', timestamp: 1 });
    expect(stopped.checkDue()).toBe(false);
  });

  it('adjust changes the instruction, stop ends the run with the check’s reason; every check is kept', () => {
    const run = engine({ instruction: 'old' });
    run.applyCheck({ pages: 2, decision: 'continue', reason: 'fine', timestamp: 1 });
    run.applyCheck({ pages: 4, decision: 'adjust', reason: 'off', instruction: 'new', timestamp: 2 });
    expect(run.instruction).toBe('new');
    expect(run.progress(4, []).instruction).toBe('new');
    run.applyCheck({ pages: 6, decision: 'stop', reason: 'nothing useful', timestamp: 3 });
    run.applyCheck({ pages: 8, decision: 'stop', reason: 'later', timestamp: 4 });
    expect(run.checks.map((check) => check.decision)).toEqual(['continue', 'adjust', 'stop', 'stop']);
    expect(run.summary({ pagesQueued: 0, durationMs: 1 })).toMatchObject({ reason: 'stopped', message: 'nothing useful' });
  });

  it('a check that failed: a warning unless the error is fatal, which fails the run', () => {
    const run = engine();
    expect(run.checkFailed(new ConfigError('the reply was not JSON'))).toBe('warning');
    expect(run.failure).toBeUndefined();
    expect(run.checkFailed(new ChatModelAuthError('bad key'))).toBe('fatal');
    expect(run.failure?.message).toBe('bad key');
    expect(run.checkFailed('a thrown string')).toBe('warning');
  });
});

describe('CollectionEngine: the end', () => {
  it('failed before cancelled before stopped before max-pages before done', () => {
    const base = { pagesQueued: 0, durationMs: 5 };
    expect(engine().summary(base).reason).toBe('done');
    expect(engine().summary({ ...base, maxPages: true }).reason).toBe('max-pages');
    const stopped = engine({ maxRecords: 1 });
    stopped.pageDone(done('a'));
    expect(stopped.summary({ ...base, maxPages: true }).reason).toBe('max-records');
    expect(stopped.summary({ ...base, cancelled: { timedOut: false, message: 'by the user' } })).toMatchObject({ reason: 'cancelled', message: 'by the user' });
    expect(stopped.summary({ ...base, cancelled: { timedOut: true, message: 'too long' } }).reason).toBe('timed-out');
    const error = new PlannavError('UNEXPECTED_ERROR', 'the store broke');
    expect(stopped.fail(error)).toBe(true);
    expect(stopped.fail(new PlannavError('UNEXPECTED_ERROR', 'later'))).toBe(false);
    const summary = stopped.summary({ ...base, cancelled: { timedOut: false, message: 'x' } });
    expect(summary).toMatchObject({ reason: 'failed', message: 'the store broke', error: { code: 'UNEXPECTED_ERROR' } });
  });

  it('the summary carries the counters, usage, queued pages and duration; counters the front does not keep stay out', () => {
    const run = engine({ counters: { retries: false } });
    run.pageDone(done('a', 2));
    run.addUsage({ ...emptyUsage, inputTokens: 10, totalTokens: 10 });
    const summary = run.summary({ pagesQueued: 4, durationMs: 7 });
    expect(summary).toMatchObject({ pagesDone: 1, records: 2, pagesQueued: 4, durationMs: 7, usage: { inputTokens: 10 } });
    expect('retries' in summary).toBe(false);
  });
});

describe('CollectionEngine: resuming', () => {
  it('a snapshot restored gives the same state: counters, batches, instruction, checks, usage', () => {
    const run = engine({ maxFailures: 2 });
    run.pageDone(done('a', 3));
    run.pageFailed(failed('b'));
    run.pageFailed(failed('b'));
    run.applyCheck({ pages: 3, decision: 'adjust', reason: 'r', instruction: 'newer', timestamp: 1 });
    run.addUsage({ ...emptyUsage, outputTokens: 5, totalTokens: 5 });
    const again = engine({ maxFailures: 2 });
    again.restore(structuredClone(run.snapshot()));
    expect(again.snapshot()).toEqual(run.snapshot());
    expect(again.batch('b').abandoned).toBe(true);
    expect(again.instruction).toBe('newer');
  });

  it('checks restored keep a stop in force; the check count goes on from where the run was', () => {
    const run = engine({ checkEvery: 2 });
    run.pageDone(done('a'));
    run.pageDone(done('a'));
    run.pageDone(done('a'));
    run.restoreCheck({ pages: 2, decision: 'continue', reason: 'ok', timestamp: 1 });
    run.alignChecks();
    expect(run.checkDue()).toBe(false);
    run.pageDone(done('a'));
    expect(run.checkDue()).toBe(true);
    run.restoreCheck({ pages: 4, decision: 'stop', reason: 'enough', timestamp: 2 });
    expect(run.stopping).toEqual({ reason: 'stopped', message: 'enough' });
  });
});

describe('seedPages', () => {
  it('start URLs are a batch each, list URLs a batch per host; a URL the policy denies is a ConfigError naming the option', () => {
    const seeds = seedPages({ start: 'https://a.test/list#top', urls: ['https://b.test/1', 'https://b.test/2'] });
    expect(seeds).toEqual([
      { url: 'https://a.test/list', batch: 'start:https://a.test/list', depth: 0, field: 'start' },
      { url: 'https://b.test/1', batch: 'urls:b.test', depth: 0, field: 'urls' },
      { url: 'https://b.test/2', batch: 'urls:b.test', depth: 0, field: 'urls' },
    ]);
    expect(() => seedPages({ urls: ['https://b.test/1'] }, { check: () => ({ allowed: false, reason: 'denied' }) })).toThrow(
      expect.objectContaining({ code: 'CONFIG_ERROR', field: 'urls' }),
    );
  });
});
