// PDFs in real headless Chromium with both drivers (issue 24, contract section C): extract_content
// reads the text of a PDF opened in the browser and of a downloaded one (the scripted extraction
// model must be sent the PDF's words), and save_pdf prints the page into the downloads folder.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { act, Executor, extractContentAction, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { downloadedPdfLines, files, pdfLines, startFileSite, type FileSite } from '../helpers/state-files';
import { libraries, type StateDriver } from '../helpers/state-drivers';

let site: FileSite;
let scratch: string;

beforeAll(async () => {
  site = await startFileSite();
  scratch = mkdtempSync(join(tmpdir(), 'plannav-pdf-test-'));
});

afterAll(async () => {
  await site?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
});

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Every request text of `llm`, whitespace collapsed. */
const sentTo = (llm: ScriptedLLM) => flat(llm.requests.map((request) => request.lastUserText).join('\n'));

/** The parameter of extract_content that names a downloaded file (its name is the implementer's: file, path, download…). */
function fileParameter(): string {
  const schema = extractContentAction().schema as unknown as z.ZodObject;
  const key = Object.keys(schema.shape ?? {}).find((name) => /file|path|download/i.test(name));
  if (!key) throw new Error(`extract_content has no parameter for a downloaded file; its parameters: ${Object.keys(schema.shape ?? {}).join(', ')}`);
  return key;
}

describe.each(libraries)('PDFs with $name', (library) => {
  let driver: StateDriver;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(scratch, `${library.name}-`));
    driver = await library.launch({ downloads: { dir } });
  });

  afterAll(async () => {
    await driver?.close();
  });

  it('extract_content reads the text of a PDF opened in the browser', async () => {
    // In a tab of its own, closed at the end: the other cases start from a tab that never held the PDF viewer.
    const opened = await act(driver, { action: 'open_tab', params: { url: site.url('/statement.pdf') } });
    expect(opened.error).toBeUndefined();
    const llm = new ScriptedLLM({ responses: [JSON.stringify({ extracted: 'The closing balance is 4217 euros.' })] });
    const result = await act(driver, { action: 'extract_content', params: { goal: 'the closing balance' } }, { llm });
    await driver.closeTab((await driver.activeTab()).id);

    expect(result.error).toBeUndefined();
    expect(result.extractedContent).toContain('The closing balance is 4217 euros.');
    const sent = sentTo(llm);
    for (const line of pdfLines) expect(sent).toContain(line);
  });

  it('extract_content reads the text of a PDF the task downloaded', async () => {
    await driver.goto(site.url('/downloads.html'));
    const downloads: { path?: string; suggestedFilename: string; status: string }[] = [];
    const parameter = fileParameter();
    let navigatorStep = 0;
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ nextSteps: 'Read the invoice' });
        navigatorStep++;
        if (navigatorStep === 1) {
          const line = request.lastUserText.split('\n').find((item) => /\[\d+\]</.test(item) && item.includes('Invoice PDF'));
          return scriptedActions([{ click_element: { index: Number(/\[(\d+)\]/.exec(line ?? '')?.[1]) } }]);
        }
        const invoice = downloads.find((event) => event.suggestedFilename === files.invoice.name && event.status === 'saved');
        if (navigatorStep === 2 && invoice?.path) return scriptedActions([{ extract_content: { goal: 'the amount due', [parameter]: invoice.path } }]);
        return scriptedActions([{ done: { text: 'Read', success: true } }]);
      },
    });
    const extractionLLM = new ScriptedLLM({ responses: [JSON.stringify({ extracted: 'Amount due: 318 euros.' })] });
    const executor = new Executor({
      task: 'What does the invoice ask me to pay?',
      llm,
      extractionLLM,
      browser: driver,
      sensitiveActions: false,
      maxSteps: 4,
      planningInterval: 10,
    });
    executor.on('download', (event: (typeof downloads)[number]) => downloads.push(event));
    const ends: ExecutorEventMap['action-end'][] = [];
    executor.on('action-end', (event) => ends.push(event));
    await executor.execute();
    await executor.close();

    expect(downloads.map((event) => [event.suggestedFilename, event.status])).toContainEqual([files.invoice.name, 'saved']);
    expect(ends.map((event) => [event.action, event.error])).toContainEqual(['extract_content', undefined]);
    const sent = sentTo(extractionLLM);
    for (const line of downloadedPdfLines) expect(sent).toContain(line);
  });

  it('save_pdf prints the page into the downloads folder under a safe name', async () => {
    await driver.goto(site.url('/downloads.html'));
    const named = await act(driver, { action: 'save_pdf', params: { filename: 'documents.pdf' } });
    expect(named.error).toBeUndefined();
    const saved = readdirSync(dir).filter((name) => /^documents.*\.pdf$/.test(name));
    expect(saved).toHaveLength(1);
    const path = join(dir, saved[0]!);
    expect(named.extractedContent).toContain(path);
    const pdf = readFileSync(path);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-1024).toString('latin1')).toContain('%%EOF');

    // A name that tries to leave the folder is kept inside it; no name at all still gives a .pdf there.
    const before = new Set(readdirSync(dir));
    const escaping = await act(driver, { action: 'save_pdf', params: { filename: '../../outside.pdf' } });
    expect(escaping.error).toBeUndefined();
    expect(existsSync(join(dirname(dir), 'outside.pdf'))).toBe(false);
    expect(existsSync(join(dirname(dirname(dir)), 'outside.pdf'))).toBe(false);
    const unnamed = await act(driver, { action: 'save_pdf', params: {} });
    expect(unnamed.error).toBeUndefined();
    const added = readdirSync(dir).filter((name) => !before.has(name));
    expect(added).toHaveLength(2);
    for (const name of added) {
      expect(name).toMatch(/\.pdf$/);
      expect(readFileSync(join(dir, name)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });
});
