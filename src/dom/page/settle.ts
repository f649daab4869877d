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
