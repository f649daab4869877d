import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CallOptions, FrameInfo, PageScript } from '../browser/types';
import { resolveDriver } from '../dom/driver-defaults';
import { runtimeScriptId } from '../dom/page-runtime';
import { UrlPolicy } from '../security/url-policy';
import { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../testing/scripted-llm';
import { compactHtml, PageExtractor } from './page-extraction';

const pageUrl = 'https://jobs.example/all';

/** A fake browser whose one frame answers the page runtime's extractHtml with `html`. */
class OnePageDriver extends FakeBrowserDriver {
  constructor(private readonly html: string) {
    super();
  }

  override async frames(): Promise<FrameInfo[]> {
    return [{ id: 'frame-0', url: pageUrl }];
  }

  override async evaluate<TArg, TResult>(_frameId: string, script: PageScript<TArg, TResult>, _arg: TArg, _options?: CallOptions): Promise<TResult> {
    if (script.id !== runtimeScriptId('extractHtml')) throw new Error(`unexpected script ${script.id}`);
    return { url: pageUrl, title: 'All jobs', html: this.html, truncated: false } as TResult;
  }
}

const Job = z.object({ id: z.string(), company: z.string(), salary: z.string() });
type Job = z.output<typeof Job>;

const salary = (index: number): string => `$${40 + (index % 90)},000 a year`;

/** A model that reads the postings `pattern` matches in the part it is shown, as a model would (a posting cut off at the part's edge does not match). */
function readingModel(pattern: RegExp): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request): ScriptedResponse => {
      const text = request.lastUserText;
      const records = [...text.matchAll(pattern)].map((match) => ({ id: match[1] as string, company: match[2] as string, salary: match[3] as string }));
      return { object: { records } };
    },
  });
}

async function extractAll(html: string, llm: ScriptedLLM): Promise<{ records: readonly Job[]; invalid: number }> {
  const extractor = new PageExtractor(Job, { retry: { retries: 0 }, maxChunkChars: undefined });
  return extractor.extract({
    driver: resolveDriver(new OnePageDriver(html)),
    client: llm,
    instruction: 'every job posting: id, company, salary',
    urlPolicy: new UrlPolicy(),
    signal: new AbortController().signal,
  });
}

describe('PageExtractor on a page longer than one part (the default 30000 characters)', () => {
  it('reads every posting of a job board listing once, the parts cut between postings', async () => {
    // Each posting a heading link and paragraphs, as job boards render them (examples/collect-site); the
    // collection sends links of the page's own site as paths.
    const items = Array.from(
      { length: 400 },
      (_, index) =>
        `<li><h2><a href="https://jobs.example/job/job-${index}">Posting ${index}</a></h2><p>Company ${index}</p><p>Remote</p><p>${salary(index)}</p></li>`,
    );
    const llm = readingModel(/\[Posting \d+\]\((?:https:\/\/jobs\.example)?\/job\/(job-\d+)\)\s+(Company \d+)\s+Remote\s+(\$[\d,]+ a year)/g);
    const { records, invalid } = await extractAll(`<h1>Jobs</h1><ol>${items.join('')}</ol>`, llm);

    expect(llm.requests.filter((request) => request.output?.name === 'collect_extract').length).toBeGreaterThan(1);
    expect(invalid).toBe(0);
    expect(records.map((job) => job.id)).toEqual(Array.from({ length: 400 }, (_, index) => `job-${index}`));
    expect(records[123]).toEqual({ id: 'job-123', company: 'Company 123', salary: salary(123) });
  });

  it('reads every posting once when nothing but a line break parts them: the parts overlap, and what both read is kept once', async () => {
    const items = Array.from({ length: 1000 }, (_, index) => `<b>job-${index}</b><br>Company ${index}<br>${salary(index)}`);
    const llm = readingModel(/^(job-\d+)\n(Company \d+)\n(\$[\d,]+ a year)/gm);
    const { records } = await extractAll(`<h1>Jobs</h1><div>${items.join('<br>')}</div>`, llm);

    const parts = llm.requests.filter((request) => request.output?.name === 'collect_extract');
    expect(parts.length).toBeGreaterThan(1);
    expect(records.map((job) => job.id)).toEqual(Array.from({ length: 1000 }, (_, index) => `job-${index}`));
  });

  it('drops the cut-off copy of a posting that a careless model still reads, rather than count it as invalid', async () => {
    const items = Array.from({ length: 1000 }, (_, index) => `<b>job-${index}</b><br>Company ${index}<br>${salary(index)}`);
    // This model also writes down a posting the part cuts off before its salary (the schema rejects it).
    const llm = readingModel(/^(job-\d+)(?:\n(Company \d+))?(?:\n(\$[\d,]+ a year))?/gm);
    const { records, invalid } = await extractAll(`<h1>Jobs</h1><div>${items.join('<br>')}</div>`, llm);

    const firstPart = (llm.requests[0] as ScriptedRequest).lastUserText;
    expect(firstPart.slice(0, firstPart.indexOf('\n</untrusted_content>'))).not.toMatch(/a year$/);
    expect(invalid).toBe(0);
    expect(records.map((job) => job.id)).toEqual(Array.from({ length: 1000 }, (_, index) => `job-${index}`));
  });

  it('keeps a posting the page itself repeats', async () => {
    // The same posting twice on the page, far apart: both are the page's, not the overlap's.
    const items = Array.from({ length: 1000 }, (_, index) => `<b>job-${index % 900}</b><br>Company ${index % 900}<br>${salary(index % 900)}`);
    const llm = readingModel(/^(job-\d+)\n(Company \d+)\n(\$[\d,]+ a year)/gm);
    const { records } = await extractAll(`<h1>Jobs</h1><div>${items.join('<br>')}</div>`, llm);
    expect(records).toHaveLength(1000);
  });
});

describe('compactHtml', () => {
  it("sends links of the page's own site as paths, and the listing's own page links as their text only", () => {
    const html =
      '<a href="https://shop.example/item/7">Blue teapot</a> <img src="https://shop.example/i/7.png" alt="teapot">' +
      '<a href="https://elsewhere.example/x">Partner</a> <a class="p" href="/list?page=2&amp;sort=new">2</a> <a href="https://shop.example/list?page=3&amp;sort=new">Next</a> <a href="#top">Top</a>';
    const pager = (url: string): boolean => /\/list\?page=\d+&sort=new$/.test(url);
    const { html: compact, paths } = compactHtml(html, 'https://shop.example/list?page=1&sort=new', pager);
    expect(compact).toBe(
      '<a href="/item/7">Blue teapot</a> <img src="/i/7.png" alt="teapot">' +
        '<a href="https://elsewhere.example/x">Partner</a> <a class="p">2</a> <a>Next</a> <a>Top</a>',
    );
    expect([...paths]).toEqual(['/item/7', '/i/7.png']);
  });
});
