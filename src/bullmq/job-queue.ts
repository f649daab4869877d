// The queue of a BullMQ collection, as its coordinator holds it: one job per page (its id from the
// normalised URL), the pages enqueued and not committed, the queue's pause, and what Redis keeps of them.

import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { CollectionEngine } from '../collect/collection-engine';
import type { QueuedPage } from '../collect/store';
import { emptyUsage } from '../llm/usage';
import { isConnectionError, watchRedis } from './redis-health';
import { abandonPage } from './redis-scripts';
import {
  jobKey,
  keysOf,
  pageJobId,
  queueName,
  queuePrefix,
  type CommittedOutcome,
  type CommittedPageOutcome,
  type PageJobData,
  type redisOptions,
} from './protocol';

/** Page and check entries of the streams and list, parsed. */
export const parseEntries = <T>(entries: [string, string[]][]): T[] => entries.map(([, fields]) => JSON.parse(fields[1] as string) as T);

/** What the queue tells the run. */
export interface JobQueueHooks {
  warn(code: string, message: string): void;
  /** A page was given up with its batch, its outcome committed. */
  abandoned(outcome: CommittedOutcome): void;
  /** Redis is back after an outage: the run should check its state. */
  reconnected(): void;
}

/** The pages of a collection as BullMQ jobs, and the Redis keys that say which were enqueued, committed or dropped. */
export class JobQueue {
  readonly keys: ReturnType<typeof keysOf>;
  readonly redis: Redis;
  readonly queue: Queue;
  /** The pages enqueued and not committed, by job id. */
  readonly outstanding = new Map<string, QueuedPage>();
  enqueuedTotal = 0;
  /** Once `maxPages` refused a page. */
  pagesSkipped = false;
  // The queue is paused while a check runs or while the caller paused the run: each ends only its own.
  pausedByCaller = false;
  checking = false;
  private queueState: Promise<void> = Promise.resolve();
  private readonly health: ReturnType<typeof watchRedis>;

  constructor(
    private readonly name: string,
    connection: ReturnType<typeof redisOptions>,
    private readonly maxPages: number | undefined,
    private readonly engine: CollectionEngine,
    private readonly hooks: JobQueueHooks,
  ) {
    this.keys = keysOf(name);
    this.redis = connection.url === undefined ? new Redis(connection) : new Redis(connection.url, connection);
    this.queue = new Queue(queueName(name), { connection: connection as ConnectionOptions, prefix: queuePrefix });
    // An outage is a warning when it starts and when it ends, and the state is checked once Redis is back.
    this.health = watchRedis(
      this.redis,
      (code, message) => hooks.warn(code, message),
      () => hooks.reconnected(),
    );
    this.queue.on('error', (error) => {
      if (isConnectionError(error)) this.health.down(error);
      else hooks.warn('BULLMQ_ERROR', error.message);
    });
  }

  /** Closes the queue and the connection. */
  async close(): Promise<void> {
    this.health.stop();
    await this.queue.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Pauses or resumes the queue as the run needs it now; one change at a time, in call order. */
  syncQueue(): Promise<void> {
    const change = this.queueState.then(() => (this.pausedByCaller || this.checking ? this.queue.pause() : this.queue.resume()));
    this.queueState = change.catch(() => undefined);
    return change;
  }

  addJob(jobId: string, page: QueuedPage): Promise<unknown> {
    this.outstanding.set(jobId, page);
    // The whole queued page: fields this version does not know reach the workers' page step.
    return this.queue.add('page', page, { jobId, attempts: 1 });
  }

  /** Adds a page unless its URL was ever enqueued in this collection (the Redis hash, and the job id, say so). */
  async enqueue(page: QueuedPage): Promise<boolean> {
    const { maxPages } = this;
    if (maxPages !== undefined && this.enqueuedTotal >= maxPages) {
      await this.skipPages();
      return false;
    }
    const jobId = pageJobId(page.url);
    if ((await this.redis.hsetnx(this.keys.enqueued, jobId, JSON.stringify(page))) === 0) return false;
    this.enqueuedTotal++;
    await this.addJob(jobId, page);
    return true;
  }

  /** `maxPages` refused a page: the run will end `max-pages`, this one or a resumed one. */
  async skipPages(): Promise<void> {
    if (!this.pagesSkipped) await this.redis.hset(this.keys.run, 'pagesSkipped', '1');
    this.pagesSkipped = true;
  }

  /**
   * Removes the waiting pages of a batch (or of every batch); returns how many. A page a worker took
   * meanwhile ends normally. Pages of an abandoned batch are marked dropped, so a resumed run does
   * not read them; other pages (a stop, a cancel) are not, and a resumed run reads them.
   */
  async dropQueued(batch: string | undefined): Promise<number> {
    let dropped = 0;
    for (const job of await this.queue.getJobs(['waiting', 'prioritized', 'delayed'])) {
      if (!job?.id || (batch !== undefined && (job.data as PageJobData).batch !== batch)) continue;
      try {
        await job.remove();
      } catch {
        continue;
      }
      this.outstanding.delete(job.id);
      if (batch === undefined || (await this.abandon(job.id, job.data as PageJobData))) dropped++;
    }
    return dropped;
  }

  /**
   * Gives up a page of an abandoned batch, once: it is marked dropped and its outcome `abandoned`
   * committed with it (a resumed run counts it from there). Returns whether it was given up now.
   */
  async abandon(jobId: string, page: QueuedPage): Promise<boolean> {
    const outcome: CommittedOutcome = {
      url: page.url,
      batch: page.batch,
      status: 'abandoned',
      records: 0,
      attempts: 0,
      duplicates: 0,
      invalid: 0,
      usage: emptyUsage,
    };
    const fresh = await abandonPage(this.redis, this.keys, jobId, outcome);
    if (fresh) this.hooks.abandoned(outcome);
    return fresh;
  }

  /**
   * Makes sure Redis still holds the run: false without its run key (Redis restarted empty, was
   * flushed): the run cannot go on. A page whose job vanished while the run survives
   * (a queue removed, an older snapshot restored) is enqueued again, so the run resumes from what survives.
   */
  async checkState(): Promise<boolean> {
    if ((await this.redis.hexists(this.keys.run, 'collectionId')) === 0) return false;
    const waiting = [...this.outstanding.entries()];
    for (let start = 0; start < waiting.length; start += 500) {
      const chunk = waiting.slice(start, start + 500);
      const pipeline = this.redis.pipeline();
      for (const [jobId] of chunk) pipeline.exists(jobKey(this.name, jobId));
      const replies = (await pipeline.exec()) ?? [];
      for (const [index, [jobId, page]] of chunk.entries()) {
        if (replies[index]?.[1] !== 0 || !this.outstanding.has(jobId)) continue;
        if ((await this.redis.sismember(this.keys.committed, jobId)) === 1) {
          this.outstanding.delete(jobId);
          continue;
        }
        this.hooks.warn('PAGE_JOB_LOST', `Redis no longer holds the job of ${page.url}; it is enqueued again.`);
        await this.redis.hset(this.keys.enqueued, jobId, JSON.stringify(page));
        await this.addJob(jobId, page);
      }
    }
    return true;
  }

  /** The pages enqueued but not committed, outstanding again; those whose job was lost are enqueued again. */
  async restoreQueue(): Promise<void> {
    const { redis, keys, queue } = this;
    const enqueued = await redis.hgetall(keys.enqueued);
    this.enqueuedTotal = Object.keys(enqueued).length;
    // Finished jobs the dead coordinator had not removed: committed or not, collectFinished takes them.
    for (const job of [...(await queue.getCompleted()), ...(await queue.getFailed())]) if (job?.id) this.outstanding.set(job.id, job.data as PageJobData);
    const committed = new Set(await redis.smembers(keys.committed));
    const dropped = new Set(await redis.smembers(keys.dropped));
    for (const [jobId, json] of Object.entries(enqueued)) {
      if (committed.has(jobId) || dropped.has(jobId) || this.outstanding.has(jobId)) continue;
      const page = JSON.parse(json) as QueuedPage;
      // The job is in the queue (waiting, in a worker's hands), or was never added or was removed before the
      // coordinator died: then it is added again, unless its batch was given up or the run stopped.
      if (await queue.getJob(jobId)) this.outstanding.set(jobId, page);
      else if (this.engine.batch(page.batch).abandoned) await this.abandon(jobId, page);
      else if (!this.engine.stopping) await this.addJob(jobId, page);
    }
    // A batch given up just before the crash may still have pages waiting.
    for (const batch of this.engine.abandonedBatches()) await this.dropQueued(batch);
    // The coordinator before may have paused the queue (a check, the caller): a resumed run starts unpaused.
    await this.syncQueue();
  } /** Every page outcome committed so far, in commit order. */
  async pages(): Promise<CommittedPageOutcome[]> {
    return parseEntries<CommittedOutcome>(await this.redis.xrange(this.keys.pages, '-', '+')).map(({ url, batch, status, records, error, attempts }) =>
      error === undefined ? { url, batch, status, records, attempts } : { url, batch, status, records, attempts, error },
    );
  }
}
