// The injection guard's false positives and detection rate: the 130 benign pages of
// ../shared/corpus/readability, read as the model would get them (the state message's full-page
// element text with title and URL, the page's visible text, and extract_content's markdown), and
// the attack strings of test/fixtures/injection/attacks.json. Called by bench/run.ts
// (`npm run bench -- --only injection` runs only this); writes bench/injection-results.json and
// the section of bench/README.md between its injection markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { htmlToMarkdown } from '../src/actions/markdown';
import { callRuntime } from '../src/dom/page-runtime';
import { defaultIncludeAttributes, PageStateReader } from '../src/dom/page-state-reader';
import type { InjectionFinding, InjectionPatternId } from '../src/events';
import { PlaywrightDriver } from '../src/playwright/index';
import { guardText, injectionPatternIds, mergeFindings } from '../src/security/injection-guard';
import { serve } from './serve';

const repoRoot = resolve(import.meta.dirname, '..');
const attacksFile = join(repoRoot, 'test/fixtures/injection/attacks.json');
const callOptions = { timeout: 60_000 };

/** The three ways a model gets a page's text. */
type View = 'state' | 'visibleText' | 'markdown';
const views: readonly View[] = ['state', 'visibleText', 'markdown'];

interface PageRow {
  readonly page: string;
  readonly chars: Record<View, number>;
  readonly findings: Record<View, readonly InjectionFinding[]>;
  /** Milliseconds the guard took on the page's markdown. */
  readonly guardMs: number;
}

interface Fixture {
  readonly attacks: readonly { readonly id: string; readonly text: string; readonly expect: readonly InjectionPatternId[] }[];
  readonly benign: readonly { readonly id: string; readonly text: string }[];
}

async function measurePages(corpusDir: string, files: readonly string[]): Promise<PageRow[]> {
  const { server, origin } = await serve(corpusDir);
  const driver = await PlaywrightDriver.launch({
    viewport: { width: 1280, height: 1100 },
    contextOptions: { javaScriptEnabled: false },
    settle: { maxWaitMs: 3000 },
  });
  await driver.context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
  // The whole page, as a state message with viewportExpansion -1 would show it.
  const reader = new PageStateReader(driver, { viewportExpansion: -1, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
  const rows: PageRow[] = [];
  try {
    for (const file of files) {
      try {
        await driver.goto(`${origin}/${encodeURIComponent(file)}`, callOptions);
        const state = await reader.capture({ screenshot: false });
        const [top] = await driver.frames(callOptions);
        if (!top) throw new Error('the page has no top frame');
        const { html } = await callRuntime(driver, top.id, 'extractHtml', { maxChars: 3_000_000, maxNodes: 300_000 }, callOptions);
        const markdown = htmlToMarkdown(html);
        const visibleText = await driver.page.evaluate(() => document.body?.innerText ?? '');
        const started = performance.now();
        const markdownFindings = guardText(markdown).findings;
        const guardMs = performance.now() - started;
        rows.push({
          page: basename(file, '.html'),
          chars: { state: state.elementsText.length, visibleText: visibleText.length, markdown: markdown.length },
          findings: {
            state: mergeFindings([guardText(state.elementsText).findings, guardText(state.title).findings, guardText(state.url, 'url').findings]),
            visibleText: guardText(visibleText).findings,
            markdown: markdownFindings,
          },
          guardMs,
        });
      } catch (error) {
        console.error(`bench injection: ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await driver.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  return rows;
}

function measureFixture(): { attacks: number; caught: number; missed: string[]; benign: number; falsePositives: string[] } {
  const fixture = JSON.parse(readFileSync(attacksFile, 'utf8')) as Fixture;
  const missed = fixture.attacks
    .filter((attack) => {
      const found = guardText(attack.text).findings.map((finding) => finding.pattern);
      return !attack.expect.every((pattern) => found.includes(pattern));
    })
    .map((attack) => attack.id);
  const falsePositives = fixture.benign.filter((item) => guardText(item.text).findings.length > 0).map((item) => item.id);
  return { attacks: fixture.attacks.length, caught: fixture.attacks.length - missed.length, missed, benign: fixture.benign.length, falsePositives };
}

/** Runs the injection part, writes its results and README section, and returns the problems (none expected). */
export async function runInjectionBench(options: {
  readonly corpusDir: string;
  readonly corpusFiles: readonly string[];
  readonly command: string;
}): Promise<string[]> {
  const rows = await measurePages(options.corpusDir, options.corpusFiles);
  const fixture = measureFixture();
  const flaggedPages = (view: View): PageRow[] => rows.filter((row) => row.findings[view].length > 0);
  const anyView = rows.filter((row) => views.some((view) => row.findings[view].length > 0));
  const byPattern = Object.fromEntries(
    injectionPatternIds.map((id) => [id, rows.filter((row) => views.some((view) => row.findings[view].some((finding) => finding.pattern === id))).length]),
  );
  const guardMs = rows.map((row) => row.guardMs).sort((a, b) => a - b);
  const summary = {
    pages: rows.length,
    pagesWithDetection: { anyView: anyView.length, ...Object.fromEntries(views.map((view) => [view, flaggedPages(view).length])) },
    pagesByPattern: byPattern,
    detections: anyView.map((row) => ({ page: row.page, findings: row.findings })),
    fixture,
    markdownGuardMs: { median: round(guardMs[Math.floor(guardMs.length / 2)] ?? 0), max: round(guardMs.at(-1) ?? 0) },
    markdownChars: { median: median(rows.map((row) => row.chars.markdown)), max: Math.max(0, ...rows.map((row) => row.chars.markdown)) },
  };
  writeFileSync(
    join(repoRoot, 'bench/injection-results.json'),
    `${JSON.stringify({ command: options.command, generatedAt: new Date().toISOString(), summary }, null, 2)}\n`,
  );
  const percent = (part: number, whole: number): string => `${whole === 0 ? 0 : round((100 * part) / whole)}%`;
  const section = [
    '<!-- injection:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`${options.command}\`.`,
    '',
    '| measure | result |',
    '|---|---|',
    `| corpus pages with at least one detection, any view | ${anyView.length} of ${rows.length} (${percent(anyView.length, rows.length)}) |`,
    ...views.map((view) => `| … in the ${viewLabel[view]} | ${flaggedPages(view).length} of ${rows.length} |`),
    ...injectionPatternIds.map((id) => `| corpus pages with \`${id}\` | ${byPattern[id]} |`),
    `| attack strings caught (every expected pattern found) | ${fixture.caught} of ${fixture.attacks} (${percent(fixture.caught, fixture.attacks)})${fixture.missed.length > 0 ? `; missed: ${fixture.missed.join(', ')}` : ''} |`,
    `| benign look-alike strings flagged | ${fixture.falsePositives.length} of ${fixture.benign}${fixture.falsePositives.length > 0 ? `: ${fixture.falsePositives.join(', ')}` : ''} |`,
    `| guard time on a page's markdown, ms (median / max) | ${summary.markdownGuardMs.median} / ${summary.markdownGuardMs.max} (markdown chars median ${summary.markdownChars.median}, max ${summary.markdownChars.max}) |`,
    '<!-- injection:end -->',
  ].join('\n');
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  if (/<!-- injection:start -->[\s\S]*<!-- injection:end -->/.test(readme)) {
    writeFileSync(readmePath, readme.replace(/<!-- injection:start -->[\s\S]*<!-- injection:end -->/, section));
  } else {
    console.error(
      'bench injection: bench/README.md has no <!-- injection:start --> … <!-- injection:end --> section; the results are in bench/injection-results.json only.',
    );
  }
  console.log(`\n${section}`);
  for (const row of anyView) console.log(`bench injection: ${row.page}: ${JSON.stringify(row.findings)}`);
  return [...fixture.missed.map((id) => `attack ${id} was missed.`), ...fixture.falsePositives.map((id) => `benign string ${id} was flagged.`)];
}

const viewLabel: Record<View, string> = {
  state: 'state message (full-page elements, title, URL)',
  visibleText: "page's visible text (innerText)",
  markdown: 'markdown extract_content sends',
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
