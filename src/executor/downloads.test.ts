// The Executor's side of downloads (issue 24) against a fake driver: each report is a `download`
// event of its step, the step's history record holds it, and the Navigator reads it next; the step
// waits for downloads still running; close() stops listening. (Real drivers: test/e2e/downloads.test.ts.)
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shopBrowser } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import type { CallOptions, DownloadReport } from '../browser/types';
import type { ExecutorEventMap } from '../events';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { describeDownloads } from './downloads';
import { Executor } from './executor';

/** The fake shop browser with a download feed the test drives. */
function downloadingBrowser() {
  const browser = shopBrowser();
  const listeners = new Set<(download: DownloadReport) => void>();
  let running: Promise<void> = Promise.resolve();
  const waits: (number | undefined)[] = [];
  return Object.assign(browser, {
    onDownload(listener: (download: DownloadReport) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async waitForDownloads(options?: CallOptions): Promise<void> {
      waits.push(options?.timeout);
      await running;
    },
    /** Reports a download to every listener (as the driver does when one ends). */
    report(download: DownloadReport): void {
      for (const listener of listeners) listener(download);
    },
    /** A download that ends (is reported) when `finish` is called; the step end waits for it. */
    startSlow(download: DownloadReport): () => void {
      let finish = (): void => undefined;
      running = new Promise<void>((done) => {
        finish = () => {
          for (const listener of listeners) listener(download);
          done();
        };
      });
      return finish;
    },
    listenerCount: () => listeners.size,
    waits,
  });
}

const statement: DownloadReport = {
  url: 'https://shop.test/files/statement',
  suggestedFilename: 'statement.csv',
  status: 'saved',
  path: '/downloads/statement.csv',
  bytes: 777,
  mimeType: 'text/csv',
};
const denied: DownloadReport = { url: 'https://evil.test/x.exe', suggestedFilename: 'x.exe', status: 'blocked', reason: 'host evil.test is not allowed' };

describe('downloads in an Executor', () => {
  it('sends a download event of the step, records it in the step and tells the Navigator next', async () => {
    const browser = downloadingBrowser();
    let finishSlow: () => void = () => undefined;
    const download = defineAction({
      name: 'download_files',
      description: 'Downloads the files',
      schema: z.object({}),
      handler: async () => {
        browser.report(statement);
        browser.report(denied);
        finishSlow = browser.startSlow({ ...statement, suggestedFilename: 'slow.pdf', path: '/downloads/slow.pdf', mimeType: 'application/pdf', bytes: 9 });
        // The slow one ends after the action, before the step's end has waited for it.
        setTimeout(() => finishSlow(), 20);
        return 'Clicked';
      },
    });
    let navigatorCalls = 0;
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ nextSteps: 'Download' });
        navigatorCalls++;
        return navigatorCalls === 1 ? scriptedActions([{ download_files: {} }]) : scriptedActions([{ done: { text: 'ok', success: true } }]);
      },
    });
    const executor = new Executor({ task: 'Get the statement', llm, browser, actions: [download], maxSteps: 3, planningInterval: 10, sensitiveActions: false });
    const events: ExecutorEventMap['download'][] = [];
    executor.on('download', (event) => events.push(event));
    await executor.execute();

    expect(events.map((event) => [event.suggestedFilename, event.status, event.step, event.actor])).toEqual([
      ['statement.csv', 'saved', 1, 'system'],
      ['x.exe', 'blocked', 1, 'system'],
      ['slow.pdf', 'saved', 1, 'system'],
    ]);
    expect(browser.waits[0]).toBeGreaterThan(0);
    const step = executor.history.steps.find((record) => record.actor === 'navigator' && record.step === 1);
    expect(step?.downloads?.map((item) => item.suggestedFilename)).toEqual(['statement.csv', 'x.exe', 'slow.pdf']);
    const next = llm.requests.filter((request) => request.agent === 'navigator')[1];
    const told = next?.messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n') ?? '';
    expect(told).toContain('/downloads/statement.csv (text/csv, 777 bytes)');
    expect(told).toMatch(/x\.exe.*blocked by the URL policy/);
    expect(told).toContain('extract_content');
    // The later step records no download again.
    expect(executor.history.steps.filter((record) => record.downloads).length).toBe(1);
    await executor.close();
  });

  it('reports a download between tasks as such, and stops listening on close', async () => {
    const browser = downloadingBrowser();
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: true, finalAnswer: 'done' })] });
    const executor = new Executor({ task: 'Nothing', llm, browser });
    const events: ExecutorEventMap['download'][] = [];
    executor.on('download', (event) => events.push(event));
    await executor.execute();
    browser.report(statement);
    expect(events).toEqual([expect.objectContaining({ suggestedFilename: 'statement.csv', betweenTasks: true, step: 0 })]);
    expect(browser.listenerCount()).toBe(1);
    await executor.close();
    expect(browser.listenerCount()).toBe(0);
  });
});

describe('describeDownloads', () => {
  it('gives each file its name, type, size and place, or why it was not saved', () => {
    const text = describeDownloads([
      statement,
      denied,
      { url: 'https://shop.test/big', suggestedFilename: 'big.bin', status: 'too-large', reason: 'over the cap' },
      { url: 'https://shop.test/gone', suggestedFilename: '', status: 'failed' },
    ]);
    expect(text).toContain('"statement.csv" from https://shop.test/files/statement: saved as /downloads/statement.csv (text/csv, 777 bytes)');
    expect(text).toContain('"x.exe" from https://evil.test/x.exe: blocked by the URL policy, not saved: host evil.test is not allowed');
    expect(text).toContain('"big.bin" from https://shop.test/big: too large, not saved: over the cap');
    expect(text).toContain('"https://shop.test/gone" from https://shop.test/gone: failed, not saved');
    expect(text).not.toContain('extract_content');
  });
});
