// Chooses the text shown for each link URL (`href`) of one serialized page: short, yet never the
// same text for two destinations. Pure string work: it must not reach the page or the network.

/** One link of a serialized page, as {@link shortenLinks} reads it. */
export interface PageLink {
  /**
   * The href as the snapshot script sends it: `/path?query#fragment` for the document's own origin,
   * a bare `#fragment` for the document itself, absolute for any other origin.
   */
  readonly href: string;
  /** The link's visible text, as the model reads it on the element's line. */
  readonly text: string;
  /** The URL of the document (top page or frame) that holds the link; relative hrefs are read against it. */
  readonly documentUrl: string;
}

/** Options of {@link shortenLinks}. */
export interface ShortenLinksOptions {
  /**
   * How many characters of a link's path, query and fragment are shown whole; a longer one is cut
   * in the middle. The origin of an absolute link is always shown whole.
   * @default 32
   * @example
   * shortenLinks(links, { maxLength: 60 })
   */
  readonly maxLength?: number | undefined;
  /**
   * The same for a link with visible text of its own: the text already tells the model what the
   * link is, so its href needs only enough to show where it leads.
   * @default 16
   */
  readonly maxLengthWithText?: number | undefined;
}

/**
 * Query parameters that only tell analytics where a click came from; the page they lead to is the
 * same without them. Compared in lower case; every `utm_…` parameter counts as well.
 */
export const trackingParameters: ReadonlySet<string> = new Set([
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  '__hstc',
  '__hssc',
  '__hsfp',
  'mkt_tok',
  '_ga',
  '_gl',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'rb_clickid',
  'wickedid',
  '_openstat',
]);

/** The mark that stands for what is left out of a link. */
const cutMark = '…';
/**
 * A cut that saves fewer characters than this is not made: the mark and the broken word cost
 * tokens too, so a small cut can make a link dearer to read than the whole of it.
 */
const minimumSaving = 8;
/** Where a long piece may be cut inside: between its words. */
const wordSeparators = new Set('-_.+~,;:=');

const schemePattern = /^[a-z][a-z0-9+.-]*:/i;
/** `scheme://authority` or a scheme-relative `//authority`: the part of a link that is always shown whole. */
const originPattern = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i;

/** The href without the query parameters in {@link trackingParameters}; the rest is kept byte for byte. */
export function withoutTracking(href: string): string {
  const queryStart = href.indexOf('?');
  if (queryStart < 0) return href;
  const hashStart = href.indexOf('#', queryStart);
  const queryEnd = hashStart < 0 ? href.length : hashStart;
  const kept = href
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .filter((parameter) => !isTracking(parameter.split('=', 1)[0] ?? ''));
  const query = kept.join('&');
  return `${href.slice(0, queryStart)}${query ? `?${query}` : ''}${href.slice(queryEnd)}`;
}

function isTracking(rawName: string): boolean {
  const name = safeDecode(rawName.replace(/\+/g, ' ')).toLowerCase();
  return name.startsWith('utm_') || trackingParameters.has(name);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function parse(url: string, base?: string): URL | undefined {
  try {
    return new URL(url, base);
  } catch {
    return undefined;
  }
}

/**
 * Whether the visible text already is the link's address (`https://example.com/a`,
 * `example.com/a/`, `www.example.com/a`, the e-mail address of a `mailto:` link): the href would
 * say the same thing twice. A text that names another address than the href's never matches, so
 * a link that reads `bank.example` but leads elsewhere keeps its href.
 */
function textIsAddress(text: string, destination: URL): boolean {
  const trimmed = text.trim();
  if (!trimmed || /\s/.test(trimmed)) return false;
  if (destination.protocol === 'mailto:' || destination.protocol === 'tel:') {
    const address = destination.href.slice(destination.protocol.length);
    const shown = trimmed.toLowerCase().startsWith(destination.protocol) ? trimmed.slice(destination.protocol.length) : trimmed;
    return shown === address || shown === safeDecode(address);
  }
  if (destination.protocol !== 'http:' && destination.protocol !== 'https:') return false;
  const hasScheme = schemePattern.test(trimmed);
  const read = parse(hasScheme ? trimmed : `${destination.protocol}//${trimmed}`);
  if (!read || (hasScheme && read.protocol !== destination.protocol)) return false;
  const form = (url: URL): string => `${url.host.replace(/^www\./, '')}${url.pathname.replace(/\/$/, '')}${url.search}${url.hash}`;
  return form(read) === form(destination);
}

/** The link's text, as a URL slug: `Machine Learning` → `machine-learning`. */
function slugOf(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * True when the last piece of the destination (its fragment, else its last path segment without
 * an extension) is the link's text as a slug: `/topics/machine-learning` for "Machine Learning".
 */
function textIsSlug(text: string, destination: URL): boolean {
  const slug = slugOf(text);
  if (slug.length < 3 || (destination.protocol !== 'http:' && destination.protocol !== 'https:')) return false;
  const last = destination.hash ? destination.hash.slice(1) : (destination.pathname.split('/').filter(Boolean).pop() ?? '');
  return slugOf(safeDecode(last).replace(/\.(html?|php|aspx?)$/i, '')) === slug && destination.search === '';
}

/** A text that names a destination: at least three letters (a day number, `>` or `2` of a pager do not). */
function namesSomething(text: string): boolean {
  return /\p{L}.*\p{L}.*\p{L}/su.test(text);
}

/**
 * A page of the document's own site (another path, not a file to download): clicking its link by
 * index is all the model needs, and its text says what it is.
 */
function sameSitePage(destination: URL, documentUrl: string): boolean {
  const page = parse(documentUrl);
  if (!page || (destination.protocol !== 'http:' && destination.protocol !== 'https:')) return false;
  if (destination.origin !== page.origin) return false;
  if (destination.pathname === page.pathname && destination.search === page.search) return false;
  return !/\.(pdf|zip|gz|tgz|rar|7z|dmg|exe|msi|apk|csv|xlsx?|docx?|pptx?|mp[34]|mov|avi|png|jpe?g|gif|svg|webp)$/i.test(destination.pathname);
}

/**
 * One piece of a link after its origin: a path segment (`/news`; the last one keeps a trailing
 * `/`), a query parameter (`?id=3`, `&page=2`) or the fragment (`#top`).
 */
interface Piece {
  readonly text: string;
  readonly kind: 'path' | 'query' | 'fragment';
}

function piecesOf(rest: string): Piece[] {
  const hashStart = rest.indexOf('#');
  const beforeHash = hashStart < 0 ? rest : rest.slice(0, hashStart);
  const queryStart = beforeHash.indexOf('?');
  const path = queryStart < 0 ? beforeHash : beforeHash.slice(0, queryStart);
  const segments = path.match(/^[^/]+|\/+[^/]*/g) ?? [];
  // A trailing slash belongs to the last segment: `/news/` is one piece, not `/news` and `/`.
  if (segments.length > 1 && /^\/+$/.test(segments.at(-1) as string)) segments.splice(-2, 2, `${segments.at(-2) as string}${segments.at(-1) as string}`);
  const pieces: Piece[] = segments.map((text) => ({ text, kind: 'path' }));
  if (queryStart >= 0) for (const parameter of beforeHash.slice(queryStart).match(/[?&][^&]*/g) ?? []) pieces.push({ text: parameter, kind: 'query' });
  if (hashStart >= 0) pieces.push({ text: rest.slice(hashStart), kind: 'fragment' });
  return pieces;
}

/** A position in `text` moved off the middle of a surrogate pair or a `%XX` escape, toward `direction`. */
function clean(text: string, position: number, direction: -1 | 1): number {
  let at = position;
  for (let step = 0; step < 3 && at > 0 && at < text.length; step++) {
    const code = text.charCodeAt(at);
    const insidePair = code >= 0xdc00 && code <= 0xdfff;
    const insideEscape = text[at - 1] === '%' || text[at - 2] === '%';
    if (!insidePair && !insideEscape) break;
    at += direction;
  }
  return at;
}

/**
 * Where to cut `body` near `position`: at a word boundary, for the head first before `position`
 * then up to `reach` characters after it, for the tail first up to `reach` characters before it
 * then after it. Without one, only a word with digits in it (an id, a hash) is cut through, or
 * any word when `anyWord`: an id costs about a token per few characters whatever is kept of it,
 * while a cut through a plain word costs more tokens than it saves.
 */
function cutPoint(body: string, position: number, side: 'head' | 'tail', reach: number, anyWord: boolean): number | undefined {
  const isSeparator = (at: number): boolean => wordSeparators.has(body[at] ?? '');
  // The head ends before its boundary (after a `=`, which belongs to the parameter's name); the tail starts at its boundary.
  const headEnd = (at: number): number => (body[at] === '=' ? at + 1 : at);
  if (side === 'head') {
    for (let at = position; at >= 3; at--) if (isSeparator(at)) return headEnd(at);
    for (let at = position + 1; at <= position + reach && at < body.length; at++) if (isSeparator(at)) return headEnd(at);
  } else {
    // Backward first: a tail is mostly a last word and an extension (`-budget.html`), and a boundary
    // looked for forward would keep the extension alone.
    for (let at = position; at >= position - reach && at > 0; at--) if (isSeparator(at)) return at;
    for (let at = position + 1; at <= position + reach && at < body.length - 1; at++) if (isSeparator(at)) return at;
  }
  // No boundary within reach on either side: the cut falls inside one long word.
  const around = body.slice(Math.max(0, position - reach), position + reach);
  return anyWord || /\d/.test(around) ? clean(body, position, side === 'head' ? -1 : 1) : undefined;
}

/**
 * A long piece with its middle left out: its separator, the first words and the last ones,
 * about `limit` characters in all; the piece as it is when the cut would save little.
 */
function cutInside(text: string, limit: number): string {
  const separator = text[0] === '/' || text[0] === '?' || text[0] === '&' || text[0] === '#' ? text[0] : '';
  const body = text.slice(separator.length);
  const half = Math.max(3, Math.floor((limit - separator.length - 1) / 2));
  if (body.length - 2 * half < minimumSaving) return text;
  // A piece many times longer than the limit is cut through any word: whatever the cut costs, it saves far more.
  const anyWord = body.length > 4 * limit;
  const headEnd = cutPoint(body, half, 'head', half, anyWord);
  const tailStart = cutPoint(body, body.length - half, 'tail', half, anyWord);
  if (headEnd === undefined || tailStart === undefined || tailStart - headEnd < minimumSaving) return text;
  return `${separator}${body.slice(0, headEnd)}${cutMark}${body.slice(tailStart)}`;
}

/** A link while its text is chosen. */
interface Candidate {
  /** Where the link leads, tracking parameters dropped: links with the same destination may read the same. */
  readonly destination: string;
  /** The href without tracking parameters, and `//host` for `https://host`: what is shown when the whole is. */
  readonly href: string;
  /** The absolute URL, shown when the whole href reads like another link's (the same relative href in two frames). */
  readonly absolute: string | undefined;
  readonly origin: string;
  readonly pieces: readonly Piece[];
  /** Per piece, while `stage` is `cut`: 0 left out, a number of characters to cut it to, or Infinity for whole. */
  readonly limits: number[];
  /** Pieces cut inside, by piece index and limit: a form is rendered again at each change. */
  readonly cuts: Map<string, string>;
  /** How many characters of the path, query and fragment the cut form may show. */
  readonly maxLength: number;
  /** `host`: only the origin, for a link to another site whose text names it; then the cut form, the whole href, the absolute URL. */
  stage: 'host' | 'cut' | 'whole' | 'absolute';
  text: string;
}

/** The pieces a candidate shows, its left-out runs each as one mark (`/…`, `?…`, `&…`, `#…`). */
function render(candidate: Candidate): string {
  let text = candidate.origin;
  let inRun = false;
  candidate.pieces.forEach((piece, index) => {
    const limit = candidate.limits[index] as number;
    if (limit > 0) {
      if (limit === Infinity) text += piece.text;
      else {
        const key = `${index}/${limit}`;
        let cut = candidate.cuts.get(key);
        if (cut === undefined) {
          cut = cutInside(piece.text, limit);
          candidate.cuts.set(key, cut);
        }
        text += cut;
      }
      inRun = false;
    } else if (!inRun) {
      text += piece.kind === 'path' ? `/${cutMark}` : `${piece.text[0] ?? ''}${cutMark}`;
      inRun = true;
    }
  });
  return text;
}

/** Sets the candidate's text from its form; a cut that saves too little shows the whole href. */
function update(candidate: Candidate): void {
  if (candidate.stage === 'host') {
    candidate.text = `${candidate.origin}/${cutMark}`;
    return;
  }
  if (candidate.stage === 'cut') {
    const cut = render(candidate);
    if (cut.length <= candidate.href.length - minimumSaving) {
      candidate.text = cut;
      return;
    }
    candidate.stage = 'whole';
  }
  candidate.text = candidate.stage === 'absolute' && candidate.absolute !== undefined ? candidate.absolute : candidate.href;
}

/**
 * The first form of a link longer than `maxLength` (after its origin): its first and last path
 * segments, each cut inside when long, then as many as fit in `maxLength` of the query
 * parameters from the first, the fragment, and the segments before the last from the end. Each
 * of these runs stops at the first piece that does not fit, so a link has at most one `…` in
 * its path and one in its query.
 */
function firstForm(candidate: Candidate, maxLength: number, pieceLimit: number): void {
  const { pieces, limits } = candidate;
  const indices = (kind: Piece['kind']): number[] => pieces.flatMap((piece, index) => (piece.kind === kind ? [index] : []));
  const paths = indices('path');
  for (const index of paths.length > 0 ? [paths[0] as number, paths.at(-1) as number] : [0]) {
    limits[index] = (pieces[index] as Piece).text.length <= pieceLimit ? Infinity : pieceLimit;
  }
  const budget = candidate.origin.length + maxLength;
  for (const run of [indices('query'), indices('fragment'), paths.slice(1, -1).reverse()]) {
    for (const index of run) {
      if (limits[index] !== 0) continue;
      limits[index] = Infinity;
      if (render(candidate).length <= budget) continue;
      limits[index] = 0;
      break;
    }
  }
  update(candidate);
}

/** Shows more of piece `index`: cut to twice as many characters, or whole; false when it already is whole. */
function reveal(candidate: Candidate, index: number, pieceLimit: number): boolean {
  const limit = candidate.limits[index];
  if (candidate.stage !== 'cut' || limit === undefined || limit === Infinity) return false;
  const piece = candidate.pieces[index] as Piece;
  const next = limit === 0 ? pieceLimit : limit * 2;
  candidate.limits[index] = cutInside(piece.text, next) === piece.text ? Infinity : next;
  update(candidate);
  return true;
}

/** Moves the candidate to its next longer stage (whole href, then absolute); false at the last. */
function lengthen(candidate: Candidate): boolean {
  if (candidate.stage === 'cut') candidate.stage = 'whole';
  else if (candidate.stage === 'whole' && candidate.absolute !== undefined) candidate.stage = 'absolute';
  else return false;
  update(candidate);
  return true;
}

/** Puts a candidate in its cut form (or whole, when short enough). */
function startCut(candidate: Candidate, pieceLimit: number): void {
  candidate.stage = candidate.href.length - candidate.origin.length > candidate.maxLength ? 'cut' : 'whole';
  if (candidate.stage === 'cut') firstForm(candidate, candidate.maxLength, pieceLimit);
  else update(candidate);
}

/**
 * Shows more of the links of a group that read the same but lead to different places: more of
 * the first piece in which they differ, in all of them, so that links alike stay alike in form.
 * Links whose pieces are all the same (the same relative href in two frames) are lengthened
 * whole, then absolute. False when none of them can show more.
 */
function separate(group: readonly Candidate[], pieceLimit: number): boolean {
  // Links shown by their host alone first show their path, cut as any other.
  const hostOnly = group.filter((candidate) => candidate.stage === 'host');
  for (const candidate of hostOnly) startCut(candidate, pieceLimit);
  if (hostOnly.length > 0) return true;
  const first = group[0] as Candidate;
  const longest = Math.max(...group.map((candidate) => candidate.pieces.length));
  let index = 0;
  while (index < longest && group.every((candidate) => candidate.pieces[index]?.text === first.pieces[index]?.text)) index++;
  let grown = false;
  if (index < longest) for (const candidate of group) if (reveal(candidate, index, pieceLimit)) grown = true;
  if (!grown) for (const candidate of group) if (lengthen(candidate)) grown = true;
  return grown;
}

/**
 * The text to show for each link's href, in the order of `links`; `undefined` where the href
 * is better left out because the link's visible text already is its address.
 *
 * - Tracking parameters ({@link trackingParameters}, `utm_…`) are dropped: the link leads to
 *   the same page for the model.
 * - A path, query and fragment longer than `maxLength` is cut: its first and last path
 *   segments are kept (a long one cut inside, between words), then the query parameters,
 *   fragment and middle segments that still fit; each left-out run reads `…`. The origin of an
 *   absolute link is kept whole, and shorter hrefs are shown as they are.
 * - Two links with different destinations never show the same text: where two would, more of
 *   the first piece in which they differ is shown, until they read apart; two whole relative
 *   hrefs that lead to different places (from two frames) are shown absolute.
 *
 * A cut href is not an address to load: the `…` marks what is missing. The model acts on a link
 * through its element index (clicking follows the page's own, full href), so it never needs the
 * whole URL to navigate; the shown text is for telling links apart and seeing where they lead.
 */
export function shortenLinks(links: readonly PageLink[], options: ShortenLinksOptions = {}): (string | undefined)[] {
  const bareLength = Math.max(8, Math.floor(options.maxLength ?? 32));
  const textLength = Math.max(8, Math.floor(options.maxLengthWithText ?? 16));
  const pieceLimit = Math.max(12, Math.floor(bareLength / 2));
  // Texts that several links share while leading to different places ("Download" for each
  // platform, "Cancel order" for each order): their hrefs must tell them apart, so none is left out.
  const destinationsByText = new Map<string, Set<string>>();
  for (const link of links) {
    const text = link.text.trim();
    if (!text) continue;
    const destination = parse(withoutTracking(link.href.trim()), parse(link.documentUrl) ? link.documentUrl : undefined)?.href ?? link.href;
    const destinations = destinationsByText.get(text) ?? new Set<string>();
    destinations.add(destination);
    destinationsByText.set(text, destinations);
  }
  const candidates = links.map((link): Candidate | undefined => {
    const shared = (destinationsByText.get(link.text.trim())?.size ?? 0) > 1;
    const maxLength = namesSomething(link.text) ? textLength : bareLength;
    const cleaned = withoutTracking(link.href.trim());
    const resolved = parse(cleaned, parse(link.documentUrl) ? link.documentUrl : undefined);
    if (resolved && textIsAddress(link.text, resolved)) return undefined;
    // A page of the same site that the link's text names: the text says all the href would.
    if (resolved && !shared && namesSomething(link.text) && sameSitePage(resolved, link.documentUrl)) return undefined;
    const sameOrigin = resolved !== undefined && resolved.origin === parse(link.documentUrl)?.origin;
    // An anchor of the page whose text names it (`#customer-reviews` for "Customer reviews").
    if (resolved && !shared && sameOrigin && resolved.hash && textIsSlug(link.text, resolved)) return undefined;
    // `//host/path` is how go_to_url reads an https address too: the scheme costs tokens and says nothing.
    const href = /^https:\/\//i.test(cleaned) ? cleaned.slice('https:'.length) : cleaned;
    const relative = !schemePattern.test(cleaned) && !cleaned.startsWith('//');
    const origin = originPattern.exec(href)?.[0] ?? schemePattern.exec(href)?.[0] ?? '';
    const pieces = piecesOf(href.slice(origin.length));
    const candidate: Candidate = {
      destination: resolved?.href ?? (relative ? `${link.documentUrl} ${cleaned}` : cleaned),
      href,
      absolute: resolved && resolved.href !== href ? resolved.href : undefined,
      origin,
      pieces,
      limits: pieces.map(() => 0),
      cuts: new Map(),
      maxLength,
      stage: 'whole',
      text: href,
    };
    // A page of another site that the link's text names: where it leads is the site; its path
    // is shown only when another link with the same text leads elsewhere on that site.
    const web = resolved !== undefined && (resolved.protocol === 'http:' || resolved.protocol === 'https:');
    if (web && !sameOrigin && namesSomething(link.text) && href.length - origin.length > 1 && origin) {
      candidate.stage = 'host';
      update(candidate);
    } else {
      startCut(candidate, pieceLimit);
    }
    return candidate;
  });
  // Show more of the links whose text another destination shares until none does. Every round
  // shows more of at least one link, or stops, so it ends.
  for (let changed = true; changed;) {
    changed = false;
    // Links the model could mistake for each other: the same href shown and, for links whose
    // text names them, the same text (those are told apart by their text already). A day of a
    // calendar or a page of a pager names nothing: its href must tell it apart.
    const byText = new Map<string, Candidate[]>();
    for (const [position, candidate] of candidates.entries()) {
      if (!candidate) continue;
      const text = links[position]?.text ?? '';
      const key = namesSomething(text) ? `${text.trim()}\u0000${candidate.text}` : candidate.text;
      const group = byText.get(key);
      if (group) group.push(candidate);
      else byText.set(key, [candidate]);
    }
    for (const group of byText.values()) {
      const first = group[0] as Candidate;
      if (group.some((candidate) => candidate.destination !== first.destination) && separate(group, pieceLimit)) changed = true;
    }
  }
  return candidates.map((candidate) => candidate?.text);
}
