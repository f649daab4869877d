// A BullMQ collection worker as its own process, for test/e2e/bullmq-collect.test.ts: its own
// headless Chromium and scripted model; one JSON line per page event on stdout.
import { createCollectionWorker } from '../../src/bullmq/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { collectSiteModel, Job } from '../../examples/collect-site/scripted-model';

const connection = process.env.REDIS_URL;
const name = process.env.COLLECTION_NAME;
if (!connection || !name) throw new Error('REDIS_URL and COLLECTION_NAME must be set.');

const browser = await PlaywrightDriver.launch({ headless: true });
const worker = await createCollectionWorker({
  connection,
  name,
  llm: collectSiteModel(),
  browser,
  schema: Job,
  // Short, for the test: a dead worker's page is taken over within about 2 s + 2 × 0.5 s.
  lockDuration: 2000,
  stalledInterval: 500,
  maxStalledCount: 2,
});
const print = (event: object): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
worker.on('page-start', (event) => print({ type: 'page-start', ...event }));
worker.on('page-end', (event) => print({ type: 'page-end', ...event }));
worker.on('worker-warning', (event) => print({ type: 'warning', ...event }));
const stop = async (): Promise<void> => {
  await worker.close();
  await browser.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
print({ type: 'ready', pid: process.pid });
