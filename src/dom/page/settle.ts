// The page side of settling: resolves once the DOM has been quiet for a while. Runs in the page.

/** Resolves with true once the DOM had no mutation for `quietMs`, or false after `maxMs`. */
export function waitForDomQuiet({ quietMs, maxMs }: { readonly quietMs: number; readonly maxMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (quiet: boolean): void => {
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve(quiet);
    };
    const observer = new MutationObserver(() => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(true), quietMs);
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    quietTimer = setTimeout(() => finish(true), quietMs);
    const capTimer = setTimeout(() => finish(false), maxMs);
  });
}

/** Whether the timer {@link startTimerProbe} armed has fired; undefined while none is armed in this document. */
let timerFired: boolean | undefined;

/**
 * Starts the check of whether this document runs timers. With scripting on, the parser keeps the
 * content of a `<noscript>` as text, and timers run: `scripting-on`. Otherwise (scripting off, or
 * a document that is not HTML) it arms a 0 ms timer that {@link timerProbeFired} reads back.
 */
export function startTimerProbe(): 'scripting-on' | 'armed' {
  const probe = document.createElement('noscript');
  probe.innerHTML = '<i></i>';
  if (probe.firstChild?.nodeType === Node.TEXT_NODE) return 'scripting-on';
  timerFired = false;
  setTimeout(() => {
    timerFired = true;
  }, 0);
  return 'armed';
}

/** Whether the timer {@link startTimerProbe} armed has fired (the probe then ends); null when this document armed none. */
export function timerProbeFired(): boolean | null {
  if (timerFired === undefined) return null;
  const fired = timerFired;
  timerFired = undefined;
  return fired;
}
