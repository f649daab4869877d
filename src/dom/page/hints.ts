// A short word for a control that shows only an icon: from a named descendant, else from the
// element's own id and classes and its icon children's classes and file names. Runs in the page.

import { cap, collapse } from './text';

const prefixes = /^(fa[srlbd]?|bi|glyphicon|material-icons|icon|ico|mdi|ti|la|svg|btn|button)-/i;
const noise = /^(fa|icon|btn|button|js|is|has|active|ui|sm|lg|xs|md|[a-z]\d*|\d+)$/i;

/** Up to three words that name an icon-only control, or an empty string. */
export function iconHint(element: Element): string {
  const named = element.querySelector('[aria-label],[title],img[alt],svg title');
  if (named) {
    const label =
      named.getAttribute('aria-label') || named.getAttribute('title') || named.getAttribute('alt') || (named.localName === 'title' ? named.textContent : '');
    if (label && label.trim()) return cap(collapse(label), 40);
  }
  const words: string[] = [];
  const take = (value: string | null | undefined): void => {
    if (!value) return;
    for (const word of value.split(/[\s_]+/)) {
      const cleaned = word.replace(prefixes, '').replace(/[^a-z0-9-]/gi, '');
      if (cleaned.length > 1 && !noise.test(cleaned) && !words.includes(cleaned)) words.push(cleaned);
    }
  };
  take(element.id);
  take(element.getAttribute('class'));
  for (const child of element.querySelectorAll('i,span,svg,use,img')) {
    if (words.length >= 3) break;
    take(child.getAttribute('class'));
    const source = child.getAttribute('src') || child.getAttribute('href') || child.getAttribute('xlink:href');
    if (source) {
      // A sprite's fragment names its symbol; otherwise the file name, without query string (cache busting) or extension.
      const [path = '', fragment] = source.split('#');
      take(
        fragment ||
          path
            .split('?')[0]
            ?.split('/')
            .filter(Boolean)
            .pop()
            ?.replace(/\.\w+$/, ''),
      );
    }
    take(child.getAttribute('data-icon'));
  }
  return cap(words.slice(0, 3).join(' '), 40);
}
