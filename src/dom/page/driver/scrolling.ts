// The page side of a driver's scroll: the page or one element, by pixels or to a percentage. Runs in the page.

/** Scrolls the page, or an element, by pixels or to a percentage; returns the new scroll top. */
export function scrollInPage(element: Element | null, { deltaY, toPercent }: { deltaY: number | null; toPercent: number | null }): number {
  const target = element ?? document.scrollingElement ?? document.documentElement;
  const viewport = element ? element.clientHeight : window.innerHeight;
  const range = Math.max(0, target.scrollHeight - viewport);
  const top = toPercent !== null ? (range * toPercent) / 100 : target.scrollTop + (deltaY ?? viewport * 0.8);
  if (element) element.scrollTo({ top, behavior: 'instant' });
  else window.scrollTo({ top, behavior: 'instant' });
  return target.scrollTop;
}
