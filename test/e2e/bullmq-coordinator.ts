// A BullMQ collection coordinator as its own process, for test/e2e/bullmq-coordinator-resume.test.ts:
// the collection site's scripted model as planner; one JSON line per start, page and end on stdout.
import { createCollectionCoordinator } from '../../src/bullmq/index';
import { collectSiteModel, Job } from '../../examples/collect-site/scripted-model';

const connection = process.env.REDIS_URL;
const name = process.env.COLLECTION_NAME;
const start = process.env.START_URL;
if (!connection || !name || !start) throw new Error('REDIS_URL, COLLECTION_NAME and START_URL must be set.');

const coordinator = createCollectionCoordinator<Job>({
  connection,
  name,
  llm: collectSiteModel(),
  start,
  instruction: 'every job posting: id, title, company, salary, link',
  schema: Job,
  key: (job) => job.id,
  modelRetry: { retries: 0, minTimeout: 1, maxTimeout: 1 },
  checkEvery: 4,
  pollInterval: 50,
});
const print = (event: object): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
coordinator.on('collect-start', (event) => print({ type: 'start', queued: event.queued, resumed: event.resumed, collectionId: event.collectionId }));
coordinator.on('collect-page', (event) => print({ type: 'page', url: event.url, records: event.records }));
const summary = await coordinator.run();
await coordinator.close();
print({ type: 'end', summary });
