// The lines a person reads for the executor's events: a line per plan and per action with its
// result, nothing for model calls, and no escape code at all without colour.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ExecutorEvent } from '../index';
import { describeEvent, painter, Spinner } from './progress';

const base = { taskId: 't1', step: 2, actor: 'navigator' as const, timestamp: 0 };
const plain = painter(false);

describe('describeEvent', () => {
  it('gives a line per plan, per Navigator decision and per action with its result or error', () => {
    const plan = {
      observation: 'On the shop.',
      challenges: '',
      done: false,
      nextSteps: 'Open the Kitchen section',
      finalAnswer: '',
      reasoning: '',
      webTask: true,
    };
    const events: ExecutorEvent[] = [
      { type: 'plan-end', ...base, actor: 'planner', plan },
      { type: 'navigator-output', ...base, evaluationPreviousGoal: 'Success', memory: '', nextGoal: 'Open the Kitchen section', actions: [] },
      {
        type: 'action-end',
        ...base,
        action: 'click_element',
        params: { index: 4 },
        actionIndex: 0,
        result: 'Clicked element 4',
        error: undefined,
        durationMs: 5,
      },
      {
        type: 'action-end',
        ...base,
        action: 'click_element',
        params: { index: 9 },
        actionIndex: 1,
        result: undefined,
        error: { name: 'ActionError', code: 'ACTION_ERROR', message: 'Element 9\nis gone', retryable: true },
        durationMs: 5,
      },
      { type: 'plan-end', ...base, actor: 'planner', plan: { ...plan, done: true, finalAnswer: 'Blue bowl' } },
    ];
    expect(events.map((event) => describeEvent(event, plain))).toEqual([
      'plan      Open the Kitchen section',
      'step 2    Open the Kitchen section',
      '          ✓ click_element {"index":4} → Clicked element 4',
      '          ✗ click_element {"index":9} error: Element 9 is gone',
      'plan      done: Blue bowl',
    ]);
  });

  it('gives a line per download that ended: where a saved file is, why one was not saved, and none for a blocked one', () => {
    const download = { type: 'download' as const, ...base, url: 'http://127.0.0.1/files/statement.pdf', suggestedFilename: 'statement.pdf' };
    expect(describeEvent({ ...download, status: 'saved', path: '/downloads/statement.pdf', bytes: 20_480, mimeType: 'application/pdf' }, plain)).toBe(
      '          ↓ downloaded statement.pdf (20 KB, application/pdf) to /downloads/statement.pdf',
    );
    expect(describeEvent({ ...download, status: 'too-large', bytes: 9_000_000, reason: 'It is over the 5 MB cap.' }, plain)).toBe(
      '          download of statement.pdf too-large: It is over the 5 MB cap.',
    );
    expect(describeEvent({ ...download, status: 'failed', reason: 'The server closed the connection.' }, plain)).toBe(
      '          download of statement.pdf failed: The server closed the connection.',
    );
    // A blocked download has its `url-blocked` line already.
    expect(describeEvent({ ...download, status: 'blocked', reason: 'Not allowed by the URL policy.' }, plain)).toBeUndefined();
  });

  it('gives no line for model calls (the spinner shows them) nor for a cancelled step', () => {
    const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0, totalTokens: 2, calls: 1, costUsd: undefined };
    expect(describeEvent({ type: 'model-call-start', ...base, provider: 'p', model: 'm', attempt: 1 }, plain)).toBeUndefined();
    const cancelled = { name: 'RequestCancelledError', code: 'REQUEST_CANCELLED', message: 'Cancelled', retryable: false };
    expect(describeEvent({ type: 'step-end', ...base, durationMs: 1, usage, error: cancelled, consecutiveFailures: 0 }, plain)).toBeUndefined();
  });

  it('uses ANSI codes only with colour', () => {
    const event: ExecutorEvent = { type: 'task-pause', ...base, actor: 'user' };
    expect(describeEvent(event, plain)).not.toContain('\u001b');
    expect(describeEvent(event, painter(true))).toContain('\u001b[33m');
  });
});

describe('Spinner', () => {
  it('writes nothing when disabled (not a terminal, or NO_COLOR)', () => {
    const stream = new PassThrough();
    const spinner = new Spinner(stream, false);
    spinner.start('navigator thinking');
    spinner.around(() => stream.write('a line\n'));
    spinner.stop();
    expect(String(stream.read())).toBe('a line\n');
  });

  it('shows the label and elapsed time, clears itself around a line and when it stops', () => {
    const stream = new PassThrough();
    const spinner = new Spinner(stream, true);
    spinner.start('planner thinking');
    spinner.around(() => stream.write('a line\n'));
    spinner.stop();
    const written = String(stream.read());
    expect(written).toMatch(/planner thinking .*0\.\d s/);
    expect(written).toContain('\r\u001b[2Ka line\n');
    expect(written.endsWith('\r\u001b[2K')).toBe(true);
  });
});
