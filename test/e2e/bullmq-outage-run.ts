// A whole BullMQ collection in one process, for test/e2e/bullmq-redis-outage.test.ts: a coordinator
// and two workers over fake browsers of a small listing and a scripted model; events as JSON lines.
import { z } from 'zod';
import { createCollectionCoordinator, createCollectionWorker } from '../../src/bullmq/index';
import { FakeBrowserDriver, ScriptedLLM, type FakePage } from '../../src/testing/index';

const connection = process.env.REDIS_URL;
const name = process.env.COLLECTION_NAME;
const pageCount = Number(process.env.PAGES ?? '8');
if (!connection || !name) throw new Error('REDIS_URL and COLLECTION_NAME must be set.');

const Item = z.object({ id: z.number().int(), name: z.string() });
const url = (page: number): string => `https://site.test/list?page=${page}`;
const pages: Record<string, FakePage> = {};
for (let page = 1; page <= pageCount; page++)
  pages[url(page)] = { title: `List page ${page}`, content: [`Item ${2 * page - 1}: Widget ${2 * page - 1}`, `Item ${2 * page}: Widget ${2 * page}`] };

/** Reads what it is shown, slowly enough that the run lasts a few seconds. */
const model = (): ScriptedLLM =>
  new ScriptedLLM({
    latencyMs: 150,
    respond: (request) => {
      const text = request.lastUserText;
      switch (request.output?.name) {
        case 'collect_survey':
          return { object: { page_error: '', blocked_by: '', next_pages: [], load_more_index: null, infinite_scroll: false } };
        case 'collect_extract':
          return { object: { records: [...text.matchAll(/Item (\d+): (Widget \d+)/g)].map((match) => ({ id: Number(match[1]), name: match[2] })) } };
        default:
          return { object: { decision: 'continue', reason: 'fine', instruction: '' } };
      }
    },
  });

const print = (event: object): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
const workers = await Promise.all(
  [0, 1].map((index) =>
    createCollectionWorker({ connection, name, llm: model(), browser: new FakeBrowserDriver({ pages }), schema: Item }).then((worker) => {
      worker.on('worker-warning', (event) => print({ type: 'worker-warning', worker: index, code: event.code, message: event.message }));
      return worker;
    }),
  ),
);
const coordinator = createCollectionCoordinator({
  connection,
  name,
  llm: model(),
  urls: Array.from({ length: pageCount }, (_, index) => url(index + 1)),
  instruction: 'every item: id, name',
  schema: Item,
  key: (item) => String(item.id),
  checkEvery: 100,
  pollInterval: 50,
});
coordinator.on('collect-page', (event) => print({ type: 'page', url: event.url, records: event.records }));
coordinator.on('collect-warning', (event) => print({ type: 'warning', code: event.code, message: event.message }));
print({ type: 'ready' });
const summary = await coordinator.run();
print({ type: 'end', summary });
await coordinator.close();
await Promise.all(workers.map((worker) => worker.close()));
