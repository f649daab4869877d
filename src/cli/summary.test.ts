// The summary block and the last NDJSON line: every figure a person or a script needs.
import { describe, expect, it } from 'vitest';
import { formatDuration, formatSummary, summaryRecord, type RunSummary } from './summary';

const summary: RunSummary = {
  status: 'ok',
  success: true,
  finalAnswer: 'Blue bowl ($11.50) is in the cart.',
  steps: 8,
  modelCalls: 14,
  usage: { inputTokens: 12_000, outputTokens: 345, totalTokens: 12_345, costUsd: 0.01234 },
  durationMs: 8_400,
  files: { history: '/tmp/run/history.json', gif: '/tmp/run/run.gif', report: '/tmp/run/report.html' },
};

describe('formatSummary', () => {
  it('says status, answer, steps, model calls, tokens, cost, duration and the files, one per line', () => {
    expect(formatSummary(summary).split('\n')).toEqual([
      'status       ok (success)',
      'answer       Blue bowl ($11.50) is in the cart.',
      'steps        8',
      'model calls  14',
      'tokens       12,345 (12,000 in, 345 out)',
      'cost         $0.0123',
      'duration     8.4 s',
      'history      /tmp/run/history.json',
      'gif          /tmp/run/run.gif',
      'report       /tmp/run/report.html',
    ]);
  });

  it('leaves out the cost when no price is known, and shows why a task failed', () => {
    const text = formatSummary({
      ...summary,
      status: 'max-steps',
      success: false,
      finalAnswer: undefined,
      error: 'Reached 20 steps.',
      usage: { ...summary.usage, costUsd: undefined },
    });
    expect(text).not.toContain('cost');
    expect(text).toContain('status       max-steps');
    expect(text).toContain('answer       -');
    expect(text).toContain('error        Reached 20 steps.');
  });

  it('paints only through the painter it is given', () => {
    const painted = formatSummary(summary, (style, text) => `<${style}>${text}</${style}>`);
    expect(painted).toContain('<green>ok (success)</green>');
    expect(formatSummary(summary)).not.toContain('\u001b');
  });
});

describe('summaryRecord', () => {
  it('is the last NDJSON line: type summary with the figures and the files (null when not written)', () => {
    const record = summaryRecord({ ...summary, files: { history: '/tmp/run/history.json' } });
    expect(record).toEqual({
      type: 'summary',
      status: 'ok',
      success: true,
      finalAnswer: 'Blue bowl ($11.50) is in the cart.',
      steps: 8,
      modelCalls: 14,
      usage: summary.usage,
      durationMs: 8_400,
      files: { history: '/tmp/run/history.json', gif: null, report: null },
    });
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [12_340, '12.3 s'],
    [125_000, '2 min 5 s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
