// The page side of `wait_for_text`: whether a text shows in this document now, read from its rendered
// text (hidden elements left out) and its open shadow roots. Runs in the page; the wait is the core's.

/** Whitespace runs as one space, case folded: how a person reads a page's words. */
const normalise = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** How many shadow roots are read besides the document: a page with thousands of components stays cheap. */
const maxShadowRoots = 200;

/** Whether `text` shows in the document (its rendered text, open shadow roots included), whitespace and case aside. */
export function textShown({ text }: { text: string }): boolean {
  const needle = normalise(text);
  if (needle === '') return true;
  const body = document.body as HTMLElement | null;
  if (body && normalise(body.innerText).includes(needle)) return true;
  let read = 0;
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let node = walker.nextNode(); node && read < maxShadowRoots; node = walker.nextNode()) {
    const root = (node as Element).shadowRoot;
    if (!root) continue;
    read++;
    for (const child of root.children) if (child instanceof HTMLElement && normalise(child.innerText).includes(needle)) return true;
  }
  return false;
}
