// Speculation rules (`<script type="speculationrules">`) make the browser prefetch or prerender by
// itself, where no request interception sees it: a navigation guard removes them from every
// document instead. A launched full Chromium has them off in its profile (profile.ts), but
// Chromium's headless shell and a browser the user started run them.

/* v8 ignore start -- runs inside the page */
/**
 * Removes `<script type="speculationrules">` elements as they are added, before the browser acts
 * on them (the observer's microtask runs before the one that starts the prefetches). Uses the
 * DOM functions as they were when the document started, so the page cannot switch it off by
 * replacing them.
 */
export function removeSpeculationRules(): void {
  const marker = '__plannavNoSpeculation';
  if (Object.prototype.hasOwnProperty.call(window, marker)) return;
  Object.defineProperty(window, marker, { value: true, enumerable: false });
  const apply = Reflect.apply;
  // Natives taken before the page can replace them, and called through Reflect.apply. (querySelectorAll is not
  // deprecated: one of its overloads, for deprecated tag names, is.)
  /* eslint-disable @typescript-eslint/unbound-method, @typescript-eslint/no-deprecated -- see above */
  const remove = Element.prototype.remove;
  const getAttribute = Element.prototype.getAttribute;
  const querySelectorAll = Element.prototype.querySelectorAll;
  /* eslint-enable @typescript-eslint/unbound-method, @typescript-eslint/no-deprecated */
  const isRules = (node: Node): boolean =>
    node.nodeType === 1 && (node as Element).localName === 'script' && (apply(getAttribute, node, ['type']) ?? '').trim().toLowerCase() === 'speculationrules';
  const sweep = (node: Node): void => {
    if (isRules(node)) apply(remove, node, []);
    else if (node.nodeType === 1)
      for (const script of apply(querySelectorAll, node, ['script']) as NodeListOf<Element>) if (isRules(script)) apply(remove, script, []);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes') sweep(record.target);
      else for (const node of record.addedNodes) sweep(node);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['type'] });
  if (document.documentElement) sweep(document.documentElement);
}
/* v8 ignore stop */

/** The remover as a script for a page (`Page.addScriptToEvaluateOnNewDocument`, `frame.evaluate`), with a harmless `__name` in scope. */
export const speculationRulesRemover = `(() => { const __name = (target) => target; try { (${removeSpeculationRules.toString()})(); } catch {} })();`;
