// Scratch measure (issue 20, work in progress): the Collector on the collect corpus with the corpus stand-in model; npx tsx bench/collect-corpus-run.ts [scale] [concurrency].
import { z } from 'zod';
import { startCollectCorpus } from '../test/fixtures/collect-corpus/index';
import { corpusModel } from '../test/helpers/collect-corpus-model';
import { PlaywrightDriver } from '../src/playwright/index';
import { Collector } from '../src/collect/collector';
const scale = Number(process.argv[2] ?? 0.3);
const concurrency = Number(process.argv[3] ?? 2);
const corpus = await startCollectCorpus({ scale, hangMs: 6000 });
const { llm, ledger } = corpusModel(corpus.truth, corpus.url);
const browsers = await Promise.all(Array.from({ length: concurrency }, () => PlaywrightDriver.launch({ headless: true })));
const Record = z.object({ id: z.string(), title: z.string(), seller: z.string(), price: z.string(), location: z.string(), link: z.string() });
const started = Date.now();
const collector = new Collector({
  llm,
  browsers,
  concurrency,
  start: corpus.startUrls.map((s) => s.url),
  instruction: 'every listing (not sponsored ones): id, title, seller, price, location, link',
  schema: Record,
  key: (r) => r.link,
  details: true,
  pageTimeout: 15000,
  retry: { minDelayMs: 200 },
});
collector.on('collect-warning', (w) => console.log('WARN', w.code, w.message.slice(0, 160)));
collector.on('collect-failure', (f) => console.log('FAIL', f.url, f.error.message.slice(0, 120)));
const rejects: unknown[] = [];
void (async () => {
  for await (const r of collector.rejects()) rejects.push(r);
})();
const records: { data: z.output<typeof Record> }[] = [];
for await (const r of collector.records()) records.push(r);
const summary = await collector.run();
const truth = new Map(corpus.truth.reachable.map((r) => [r.link, r]));
let right = 0,
  wrong = 0;
for (const { data } of records) {
  const t = truth.get(data.link);
  if (
    t &&
    JSON.stringify(t) === JSON.stringify({ id: data.id, title: data.title, seller: data.seller, price: data.price, location: data.location, link: data.link })
  )
    right++;
  else {
    wrong++;
    if (wrong < 5) console.log('WRONG', JSON.stringify(data), JSON.stringify(t));
  }
}
const missing = corpus.truth.reachable.filter((r) => !records.some((x) => x.data.link === r.link));
const byStyle = new Map<string, number>();
for (const m of missing) {
  const page = corpus.truth.listingPages.find((p) => p.recordIds.includes(m.id));
  byStyle.set(page?.style ?? '?', (byStyle.get(page?.style ?? '?') ?? 0) + 1);
}
const chars = [...ledger.promptChars.values()].reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify(
    {
      summary: { ...summary, usage: undefined },
      reachable: corpus.truth.reachable.length,
      collected: records.length,
      right,
      wrong,
      recall: right / corpus.truth.reachable.length,
      missingByStyle: Object.fromEntries(byStyle),
      rejects: rejects.length,
      calls: Object.fromEntries(ledger.calls),
      promptChars: Object.fromEntries(ledger.promptChars),
      charsPerRecord: chars / Math.max(1, right),
      seconds: (Date.now() - started) / 1000,
    },
    null,
    1,
  ),
);
for (const b of browsers) await b.close();
await corpus.close();
