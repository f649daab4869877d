import { describe, expect, it } from 'vitest';
import { timedOutClick } from './transport';

/** A timeout as Playwright words it, with its call log (dim ANSI codes included, as Playwright writes them). */
function timeout(...steps: string[]): Error {
  const log = steps.map((step) => `\u001b[2m    - ${step}\u001b[22m\n`).join('');
  return new Error(`elementHandle.click: Timeout 5000ms exceeded.\nCall log:\n\u001b[2m  - attempting click action\u001b[22m\n${log}`);
}

describe('timedOutClick: what became of a Playwright click that timed out, by its call log', () => {
  it('was made when the log says the click action was done (Playwright then waited on a busy page)', () => {
    expect(
      timedOutClick(
        timeout(
          'scrolling into view if needed',
          'done scrolling',
          'forcing action',
          'performing click action',
          'click action done',
          'waiting for scheduled navigations to finish',
        ),
      ),
    ).toBe('made');
  });

  it('may have reached the page when it timed out while performing the click', () => {
    expect(timedOutClick(timeout('scrolling into view if needed', 'done scrolling', 'forcing action', 'performing click action'))).toBe('timed-out');
  });

  it('sent nothing when it timed out before performing the click', () => {
    expect(timedOutClick(timeout('scrolling into view if needed'))).toBe('not-sent');
  });

  it('asks the page when there is no call log, or one it does not know', () => {
    expect(timedOutClick(new Error('Timeout 5000ms exceeded.'))).toBe('timed-out');
    expect(timedOutClick('Timeout')).toBe('timed-out');
  });
});
