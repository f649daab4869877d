// The page signature the action cache keys on: the address without query values or fragment, and
// a hash of the page's structure that text and prices do not change. Pure, but for the hash.

import type { ReadFingerprint } from '../dom/fingerprint';

/**
 * The address as the cache keys it: origin and path, the query's parameter names (sorted, without
 * their values) and no fragment. `https://shop.example/search?q=mug&page=2#top` gives
 * `https://shop.example/search?page&q`. Another kind of address (`about:blank`, `data:`) loses its
 * query and fragment only.
 */
export function urlSignature(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/[?#].*$/s, '');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return url.replace(/[?#].*$/s, '');
  const names = [...new Set([...parsed.searchParams.keys()])].sort();
  return `${parsed.origin}${parsed.pathname}${names.length > 0 ? `?${names.join('&')}` : ''}`;
}

/** An XPath without its positions: where in the document's structure an element sits. */
function placeOf(xpath: string): string {
  return xpath.replace(/\[\d+\]/g, '');
}

/**
 * The structure of a page's interactive elements, as one string: each kind of element (tag, role,
 * input type) at each place in the document (its XPath without positions), once, sorted, frame by
 * frame. Text, prices, counts and the length of a list do not change it; another control, a
 * control moved to another part of the page or a page of another layout does.
 */
export function structureOf(fingerprints: readonly (ReadFingerprint | undefined)[]): string {
  const tokens = new Set<string>();
  for (const print of fingerprints) {
    if (!print) continue;
    const frame = urlSignature(print.frameUrl);
    tokens.add(`${frame} ${placeOf(print.xpath)} ${print.role ?? ''} ${print.attributes.type ?? ''}`);
  }
  return [...tokens].sort().join('\n');
}

/**
 * The words of a text that say what it is about: lower case, letters only. Numbers, prices,
 * currency signs and punctuation are left out, as they change while the thing stays the same.
 */
export function wordsOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}]+/gu, ' ')
    .trim();
}

/**
 * The page text just above the element of `index` in the model's view (`elementsText`): the
 * nearest line of page text with words in it (a product's name above its price and button), passing
 * over other elements, within the element's frame, as {@link wordsOf} keeps it. `''` when there is none.
 */
export function textAbove(elementsText: string, index: number): string {
  const lines = elementsText.split('\n');
  const start = new RegExp(`^\\t*\\*?\\[${index}\\]<`);
  const at = lines.findIndex((line) => start.test(line));
  if (at < 0) return '';
  // Which lines are page text: those outside every element's lines (an element's text may go on
  // over the lines below its first, up to its `/>`).
  const isText: boolean[] = [];
  let inElement = false;
  for (let position = 0; position < at; position++) {
    const line = lines[position] ?? '';
    if (!inElement && /^\t*\*?\[\d+\]</.test(line)) {
      isText.push(false);
      inElement = !/ \/>( \(scrollable: [^)]*\))?$/.test(line);
      continue;
    }
    if (inElement) {
      isText.push(false);
      if (/ \/>( \(scrollable: [^)]*\))?$/.test(line)) inElement = false;
      continue;
    }
    isText.push(true);
  }
  for (let position = at - 1; position >= 0; position--) {
    const line = lines[position] ?? '';
    // An iframe's boundary: what is above it belongs to another document.
    if (/^--- (iframe .*|end of iframe) ---$/.test(line.trim())) break;
    if (!isText[position]) continue;
    const words = wordsOf(line);
    if (words) return words;
  }
  return '';
}

/** A SHA-256 of `text` as 64 hex digits (Web Crypto where it is, else a 64-bit FNV-1a pair). */
export async function hashText(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (subtle) {
    const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
    return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  }
  // Pages served over plain http have no Web Crypto: a non-cryptographic hash still keys the cache.
  return fallbackHash(bytes);
}

function fallbackHash(bytes: Uint8Array): string {
  const hashes = [0x811c9dc5, 0x01000193 ^ 0x9e3779b9, 0x27d4eb2f, 0x165667b1].map((seed) => {
    let hash = seed >>> 0;
    for (const byte of bytes) {
      hash ^= byte;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash.toString(16).padStart(8, '0');
  });
  return `fnv${hashes.join('')}`;
}
