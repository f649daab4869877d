import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { RunConfig, RunSession } from '../front/index';
import type { ExecutorOptions } from '../index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/index';
import type { PageMessage } from './event-stream';
import type { PageEventMap } from './messages';
import { PageCommandError, RunController } from './run-controller';

/** The events the controller published, in order, and a way to wait for one. */
class Recorder {
  readonly messages: PageMessage[] = [];
  private waiters: { test: (message: PageMessage) => boolean; resolve: (message: PageMessage) => void }[] = [];
  publish(message: PageMessage): void {
    this.messages.push(message);
    for (const waiter of [...this.waiters]) {
      if (!waiter.test(message)) continue;
      this.waiters = this.waiters.filter((other) => other !== waiter);
      waiter.resolve(message);
    }
  }
  publishTransient(message: PageMessage): void {
    this.publish(message);
  }
  /** Kept in the record as a `clear` message, so a test sees where a new run began. */
  clear(): void {
    this.messages.push({ type: 'clear', data: undefined });
  }
  /** The next (or an already published) event of this type that passes `test`. */
  next<K extends keyof PageEventMap>(type: K, test: (data: PageEventMap[K]) => boolean = () => true): Promise<PageEventMap[K]> {
    const match = (message: PageMessage): boolean => message.type === type && test(message.data as PageEventMap[K]);
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found.data as PageEventMap[K]);
    return new Promise((resolve) => this.waiters.push({ test: match, resolve: (message) => resolve(message.data as PageEventMap[K]) }));
  }
  of<K extends keyof PageEventMap>(type: K): PageEventMap[K][] {
    return this.messages.filter((message) => message.type === type).map((message) => message.data as PageEventMap[K]);
  }
}

/** A session on the in-memory shop and a scripted model: what the controller uses of a RunSession. */
function fakeSession(llm: ScriptedLLM, closed: string[]): RunSession {
  const browser = shopBrowser();
  const session = {
    browser,
    llm,
    startUrl: undefined,
    demoTask: undefined,
    taskFor: (task?: string): string => task ?? '',
    executorOptions: (task: string, extra: Partial<ExecutorOptions> = {}): ExecutorOptions => ({ task, llm, browser, sensitiveActions: false, ...extra }),
    close: async () => {
      closed.push('session');
    },
  };
  return session as unknown as RunSession;
}

/** A Navigator that asks one question, then ends; a Planner that plans, then accepts. */
function askingModel(): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request) => {
      const answered = request.messages.some((message) => typeof message.content === 'string' && message.content.includes('The user answered'));
      if (request.agent === 'planner')
        return answered ? scriptedPlan({ done: true, finalAnswer: 'Size L it is.' }) : scriptedPlan({ nextSteps: 'Ask for the size' });
      if (!answered) return scriptedActions([{ ask_human: { question: 'Which size?' } }], { nextGoal: 'Ask the size' });
      return scriptedActions([{ done: { text: 'Size L', success: true } }], { evaluation: 'Success - answered', nextGoal: 'Finish' });
    },
  });
}

let folder: string;
let recorder: Recorder;
let closed: string[];
let controller: RunController;
const opened: RunConfig[] = [];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-ui-controller-'));
  recorder = new Recorder();
  closed = [];
  opened.length = 0;
  controller = new RunController({
    config: { model: 'scripted:model' },
    workFolder: folder,
    hub: recorder,
    openSession: async (config) => {
      opened.push(config);
      return fakeSession(askingModel(), closed);
    },
  });
});

afterEach(async () => {
  await controller.close();
  await rm(folder, { recursive: true, force: true });
});

describe('RunController', () => {
  it('runs a task: cards with the plan, thoughts and actions, a question answered, a summary and the files', async () => {
    await controller.run('Order a shirt', { headless: true });
    const question = await recorder.next('question');
    expect(question.question).toBe('Which size?');
    expect(() => controller.answer('not-a-question', 'L')).toThrow(PageCommandError);
    controller.answer(question.questionId, 'L');

    const summary = await recorder.next('summary');
    expect(summary).toMatchObject({ kind: 'task', status: 'done', success: true, result: 'Size L it is.', errors: [] });
    expect(summary.downloads.history).toBe(true);
    expect(await controller.download('history')).toBe(join(folder, 'run-1', 'history.json'));
    expect(await controller.download('report')).toBe(join(folder, 'run-1', 'report.html'));

    const cards = recorder.of('card-start');
    expect(cards.map((card) => card.actor)).toContain('navigator');
    expect(recorder.of('plan')[0]?.nextSteps).toBe('Ask for the size');
    expect(recorder.of('thoughts').map((thoughts) => thoughts.nextGoal)).toEqual(['Ask the size', 'Finish']);
    const asked = recorder.of('action').find((action) => action.name === 'ask_human' && action.status === 'ok');
    expect(asked?.detail).toContain('The user answered "Which size?": L');
    // Every card that started ended, and the cards of steps that read the page carry its screenshot.
    expect(recorder.of('card-end').map((end) => end.cardId)).toEqual(cards.map((card) => card.cardId));
    expect(recorder.of('card-end').some((end) => end.screenshot?.startsWith('data:image/jpeg;base64,'))).toBe(true);
    expect(recorder.of('status').map((status) => status.status)).toEqual(['starting', 'running', 'done']);
    expect(recorder.of('status').at(-1)?.canFollowUp).toBe(true);
  });

  it('runs a follow-up in the same Executor and browser', async () => {
    await controller.run('Order a shirt');
    controller.answer((await recorder.next('question')).questionId, 'L');
    await recorder.next('summary');
    // The conversation goes on: the answer the first task got is in it, so the scripted Planner ends the follow-up at once.
    await controller.followUp('And the same size for a hat');
    const second = await recorder.next('summary', (event) => event.kind === 'follow-up');
    expect(second).toMatchObject({ status: 'done', result: 'Size L it is.' });
    expect(opened).toHaveLength(1);
    expect(recorder.of('question')).toHaveLength(1);
    expect(recorder.of('run-start').map((start) => [start.kind, start.fresh])).toEqual([
      ['task', true],
      ['follow-up', false],
    ]);
  });

  it('stops a task that waits for an answer: it ends cancelled', async () => {
    await controller.run('Order a shirt');
    await recorder.next('question');
    controller.stop();
    const summary = await recorder.next('summary');
    expect(summary.status).toBe('cancelled');
    expect(recorder.of('status').at(-1)?.status).toBe('cancelled');
  });

  it('refuses what cannot be done now with 409, and bad input with 400', async () => {
    const status = (call: () => unknown): number | undefined => {
      try {
        call();
      } catch (error) {
        return error instanceof PageCommandError ? error.status : -1;
      }
      return undefined;
    };
    expect(status(() => controller.pause())).toBe(409);
    expect(status(() => controller.resume())).toBe(409);
    expect(status(() => controller.stop())).toBe(409);
    await expect(controller.followUp('more')).rejects.toMatchObject({ status: 409 });
    await expect(controller.replayOpened()).rejects.toMatchObject({ status: 409 });
    expect(status(() => controller.openHistory('notes.json', { notes: true }))).toBe(400);

    await controller.run('Order a shirt');
    await expect(controller.run('Another')).rejects.toMatchObject({ status: 409 });
    await recorder.next('question');
    controller.pause();
    expect(status(() => controller.pause())).toBe(409);
  });

  it('keeps the session while the settings stay, and opens a new one when they change', async () => {
    await controller.run('Order a shirt', { maxSteps: 5 });
    controller.stop();
    await recorder.next('summary');
    await controller.run('Order a shirt', { maxSteps: 5 });
    controller.stop();
    await recorder.next('summary', (event) => event.runId === 2);
    expect(opened).toHaveLength(1);
    await controller.run('Order a shirt', { maxSteps: 6, allowedHosts: ['shop.example'] });
    controller.stop();
    await recorder.next('summary', (event) => event.runId === 3);
    expect(opened.map((config) => [config.maxSteps, config.allow])).toEqual([
      [5, undefined],
      [6, ['shop.example']],
    ]);
    expect(closed).toEqual(['session']);
  });
});
