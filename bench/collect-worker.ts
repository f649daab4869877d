// A BullMQ collection worker for the collect bench, as a child process: its own Chromium and the corpus stand-in model
// (the truth rebuilt from the seed, scale and origin it is given). Says `ready`; on SIGTERM prints its model ledger and exits.
// node --import tsx bench/collect-worker.ts <redis-url> <collection-name> <origin> <seed> <scale>
import { createCollectionWorker } from '../src/bullmq/index';
import { PlaywrightDriver } from '../src/playwright/index';
import { generateSite } from '../test/fixtures/collect-corpus/generate';
import { buildTruth } from '../test/fixtures/collect-corpus/truth';
import { corpusModel } from '../test/helpers/collect-corpus-model';
import { CorpusRecordSchema } from './collect-score';

const [connection, name, origin, seed, scale] = process.argv.slice(2);
if (connection === undefined || name === undefined || origin === undefined || seed === undefined || scale === undefined)
  throw new Error('collect-worker: <redis-url> <collection-name> <origin> <seed> <scale>');
const truth = buildTruth(generateSite(Number(seed), Number(scale)), origin);
const { llm, ledger } = corpusModel(truth, origin);
const browser = await PlaywrightDriver.launch({ headless: true });
const worker = await createCollectionWorker({ connection, name, llm, browser, schema: CorpusRecordSchema });
process.once('SIGTERM', () => {
  void (async () => {
    await worker.close();
    await browser.close();
    process.stdout.write(`ledger ${JSON.stringify({ calls: Object.fromEntries(ledger.calls), promptChars: Object.fromEntries(ledger.promptChars) })}\n`, () =>
      process.exit(0),
    );
  })();
});
process.stdout.write('ready\n');
