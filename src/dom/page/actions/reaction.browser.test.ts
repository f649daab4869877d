// Runs in headless Chromium (the vitest `browser` project): the wait for the page's reaction to typing, with real timers and a real MutationObserver.
import { afterEach, describe, expect, it } from 'vitest';
import { awaitReaction, watchTyping } from './reaction';
import { locate, otherDocument, place } from './test-page';

const bounds = { firstChangeMs: 120, quietMs: 60, maxMs: 600 };
const timers: ReturnType<typeof setInterval>[] = [];

afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  document.body.innerHTML = '';
});

describe('awaitReaction', () => {
  it('ends after the first-change window when nothing changes', async () => {
    const { field } = place('<input id="field">');
    const answer = await awaitReaction({ ...locate(field), ...bounds });
    expect(answer.outcome).toBe('unchanged');
    expect(answer.waitedMs).toBeGreaterThanOrEqual(bounds.firstChangeMs - 5);
    expect(answer.waitedMs).toBeLessThan(bounds.maxMs);
  });

  it('waits for a change that comes late in the window, then for quiet after it', async () => {
    const { field, box } = place('<input id="field"><div id="box"></div>');
    setTimeout(() => box!.append(document.createElement('ul')), 100);
    const answer = await awaitReaction({ ...locate(field), ...bounds });
    expect(answer.outcome).toBe('quiet');
    expect(answer.waitedMs).toBeGreaterThanOrEqual(100 + bounds.quietMs - 5);
    expect(document.querySelector('ul')).not.toBeNull();
  });

  it('does not count the field echoing the typing (its value attribute, its own text)', async () => {
    const { field, editor } = place('<input id="field"><div id="editor" contenteditable="true">a</div>');
    let count = 0;
    timers.push(setInterval(() => field!.setAttribute('value', String(++count)), 20));
    expect((await awaitReaction({ ...locate(field), ...bounds })).outcome).toBe('unchanged');
    for (const timer of timers.splice(0)) clearInterval(timer);
    timers.push(setInterval(() => (editor!.textContent = String(++count)), 20));
    expect((await awaitReaction({ ...locate(editor), ...bounds })).outcome).toBe('unchanged');
  });

  it('ends at its cap on a page that never stops changing', async () => {
    const { field, ticker } = place('<input id="field"><span id="ticker"></span>');
    let count = 0;
    timers.push(setInterval(() => (ticker!.textContent = String(++count)), 20));
    const answer = await awaitReaction({ ...locate(field), ...bounds });
    expect(answer.outcome).toBe('busy');
    expect(answer.waitedMs).toBeGreaterThanOrEqual(bounds.maxMs - 5);
  });

  it('sees changes in the shadow tree the field sits in', async () => {
    const { host } = place('<div id="host"></div>');
    const root = host!.attachShadow({ mode: 'open' });
    root.innerHTML = '<input><div class="list"></div>';
    setTimeout(() => root.querySelector('.list')!.append(document.createElement('li')), 30);
    const answer = await awaitReaction({ ...locate(root.querySelector('input')!), ...bounds });
    expect(answer.outcome).toBe('quiet');
  });

  it('counts its windows from the field\u2019s last keystroke when the typing was watched', async () => {
    // Wide windows, so that each way of counting gives a wait far from the others even when a loaded machine fires
    // timers late: from the keystroke about 700 ms are left, from the watch about 200, from the call the whole 1000.
    const wide = { firstChangeMs: 1000, quietMs: 60, maxMs: 3000 };
    const { field } = place('<input id="field">');
    expect(watchTyping(locate(field))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const typed = performance.now();
    field!.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sinceKeystroke = performance.now() - typed;
    const answer = await awaitReaction({ ...locate(field), ...wide });
    expect(answer.outcome).toBe('unchanged');
    expect(answer.waitedMs).toBeGreaterThanOrEqual(wide.firstChangeMs - sinceKeystroke - 20);
    expect(answer.waitedMs).toBeLessThan(wide.firstChangeMs - 50);
  });

  it('ends at once when the first-change window passed while the driver was still typing and settling', async () => {
    const { field } = place('<input id="field">');
    watchTyping(locate(field));
    await new Promise((resolve) => setTimeout(resolve, bounds.firstChangeMs + 20));
    const answer = await awaitReaction({ ...locate(field), ...bounds });
    expect(answer.outcome).toBe('unchanged');
    expect(answer.waitedMs).toBeLessThan(20);
    expect(watchTyping(otherDocument)).toBe(false);
  });

  it('still waits when the field is gone, counting every change', async () => {
    place('<div id="box"></div>');
    setTimeout(() => document.getElementById('box')!.append('new'), 30);
    expect((await awaitReaction({ ...otherDocument, ...bounds })).outcome).toBe('quiet');
  });
});
