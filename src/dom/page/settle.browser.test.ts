// Runs in headless Chromium (the vitest `browser` project): the page side of settling, with real timers and real
// DOM mutations. Every timer and interval a test starts is cleared before it ends.
import { afterEach, describe, expect, it } from 'vitest';
import { waitForDomQuiet } from './settle';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('waitForDomQuiet', () => {
  it('resolves true once the DOM stayed quiet for the quiet period', async () => {
    const started = performance.now();
    await expect(waitForDomQuiet({ quietMs: 40, maxMs: 2000 })).resolves.toBe(true);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(35);
    expect(elapsed).toBeLessThan(1000);
  });

  it('starts the quiet period again at each mutation: text, attributes and added nodes all count', async () => {
    const started = performance.now();
    const waiting = waitForDomQuiet({ quietMs: 60, maxMs: 3000 });
    const timers = [
      setTimeout(() => document.body.append(document.createElement('p')), 30),
      setTimeout(() => document.body.setAttribute('data-step', '2'), 60),
      setTimeout(() => (document.body.firstElementChild!.textContent = 'changed'), 90),
    ];
    try {
      await expect(waiting).resolves.toBe(true);
    } finally {
      timers.forEach(clearTimeout);
      document.body.removeAttribute('data-step');
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(90 + 55);
  });

  it('resolves false at the cap on a page whose DOM never stops changing', async () => {
    const ticker = setInterval(() => {
      document.body.textContent = String(performance.now());
    }, 10);
    const started = performance.now();
    try {
      await expect(waitForDomQuiet({ quietMs: 50, maxMs: 200 })).resolves.toBe(false);
    } finally {
      clearInterval(ticker);
    }
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(1500);
  });
});
