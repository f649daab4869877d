// Page HTML as markdown for the extraction model, and long markdown cut into chunks at its seams
// (headings, then paragraphs, then lines). Pure string work: no DOM and no Node API may be used here.

import { htmlToMarkdown as convertHtml, type TransformPlugin } from '@mdream/js';

/** Options of {@link htmlToMarkdown}. */
export interface MarkdownOptions {
  /**
   * Keep the URLs of links and images. Without them a link is its text and an image its alt text,
   * which is all most extraction goals need and far fewer tokens.
   * @defaultValue false
   */
  readonly includeLinks?: boolean | undefined;
  /**
   * Lines longer than this are cut (a minified blob or an inline data URL is no use to a model).
   * @defaultValue 4000
   */
  readonly maxLineChars?: number | undefined;
}

/** A piece of a long markdown text, as {@link chunkMarkdown} cuts it. */
export interface MarkdownChunk {
  /**
   * The chunk's text: the source from `start` to `end`, preceded by the header rows of the table it
   * starts in when the cut fell inside a table, so the model can still read the columns.
   */
  readonly text: string;
  /** Offset of the chunk's first character in the whole markdown. */
  readonly start: number;
  /** Offset just past the chunk's last character in the whole markdown. */
  readonly end: number;
}

/** Options of {@link chunkMarkdown}. */
export interface ChunkOptions {
  /** The most characters one chunk may hold (the repeated table header included). */
  readonly maxChunkChars: number;
  /** Stop after this many chunks; the last one's `end` says where the rest starts. @defaultValue no limit */
  readonly maxChunks?: number | undefined;
  /**
   * Start at this offset (where an earlier reading stopped) instead of the beginning. Offsets stay
   * those of the whole markdown, and a start inside a table repeats the table's header rows.
   * @defaultValue 0
   */
  readonly from?: number | undefined;
}

const defaultMaxLineChars = 4000;
const lineCutMark = ' …';

/** Links become their text and images their alt text (nothing without one). */
const withoutUrls: TransformPlugin = {
  processAttributes(node) {
    if (node.name === 'a') delete node.attributes['href'];
  },
  onNodeEnter(node) {
    if (node.name !== 'img') return undefined;
    const alt = node.attributes['alt']?.trim();
    // mdream renders the default image markup for an empty return value: a space stands for nothing.
    // The trailing space keeps the image apart from the text after it (tidy() drops a spare one).
    return alt ? `(image: ${alt}) ` : ' ';
  },
};

const cleanOptions = {
  emptyLinks: true,
  emptyImages: true,
  emptyLinkText: true,
  blankLines: true,
  // Tracking parameters (utm_*, fbclid, …) cost tokens and tell the model nothing.
  urls: true,
} as const;

const fenceLine = /^\s*(```|~~~)/;

/** The second half of a surrogate pair. */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first `length` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
export function cutAt(text: string, length: number): string {
  return length > 0 && length < text.length && isLowSurrogate(text.charCodeAt(length)) ? text.slice(0, length - 1) : text.slice(0, length);
}

/**
 * Collapses runs of spaces (not the indentation that nests lists), drops trailing spaces and
 * extra blank lines, and cuts absurdly long lines. Fenced code keeps its spacing.
 */
function tidy(markdown: string, maxLineChars: number): string {
  const lines: string[] = [];
  let inFence = false;
  let blank = true; // no blank line at the very start
  for (const raw of markdown.split('\n')) {
    let line = raw.replace(/\u00a0/g, ' ');
    if (fenceLine.test(line)) inFence = !inFence;
    else if (!inFence) {
      const indent = /^ */.exec(line)?.[0] ?? '';
      line = indent + line.slice(indent.length).replace(/[ \t]+/g, ' ');
    }
    line = line.replace(/\s+$/, '');
    if (line.length > maxLineChars) line = cutAt(line, maxLineChars) + lineCutMark;
    if (!line) {
      if (inFence || !blank) lines.push('');
      blank = true;
      continue;
    }
    lines.push(line);
    blank = false;
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/**
 * Converts HTML (the page script's cleaned HTML, or any HTML string) to markdown with headings,
 * lists, links and GitHub tables, then tidies it: whitespace collapsed, empty links and images
 * dropped, tracking parameters removed from URLs, over-long lines cut.
 */
export function htmlToMarkdown(html: string, options: MarkdownOptions = {}): string {
  const markdown = convertHtml(html, {
    clean: cleanOptions,
    ...(options.includeLinks ? {} : { hooks: [withoutUrls] }),
  });
  return tidy(markdown, Math.max(16, options.maxLineChars ?? defaultMaxLineChars));
}

/** How good a place the start of a line is to cut at: 3 before a heading, 2 a paragraph, 1 a line, 0 inside a table or code block. */
type Seam = 0 | 1 | 2 | 3;

interface LineInfo {
  readonly start: number;
  readonly seam: Seam;
  readonly tableRow: boolean;
}

const tableRow = (line: string): boolean => line.trimStart().startsWith('|');
const tableSeparator = /^\s*\|?\s*:?-{3,}/;

function describeLines(markdown: string): { lines: string[]; info: LineInfo[] } {
  const lines = markdown.split('\n');
  const info: LineInfo[] = [];
  let offset = 0;
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const previous = index > 0 ? (lines[index - 1] as string) : '';
    const fence = fenceLine.test(line);
    const insideFence = inFence; // this line is inside an open fence (its closing line included)
    if (fence) inFence = !inFence;
    const row = !insideFence && tableRow(line);
    let seam: Seam;
    if (insideFence || (row && info[index - 1]?.tableRow)) seam = 0;
    else if (/^#{1,6}\s/.test(line)) seam = 3;
    else if (previous.trim() === '' && line.trim() !== '') seam = 2;
    else seam = 1;
    info.push({ start: offset, seam, tableRow: row });
    offset += line.length + 1;
  }
  return { lines, info };
}

/** The header and separator rows of the table that line `row` belongs to, with their line breaks; '' when it has none. */
function tableHeader(lines: readonly string[], info: readonly LineInfo[], row: number): string {
  let first = row;
  while (first > 0 && info[first - 1]?.tableRow) first--;
  const separator = lines[first + 1];
  if (first + 1 >= row || separator === undefined || !tableSeparator.test(separator)) return '';
  return `${lines[first]}\n${separator}\n`;
}

/**
 * Cuts markdown into chunks of at most `maxChunkChars` characters, at the best seam in reach: the
 * start of a heading, else of a paragraph, else of a line; inside a table or a code block only when
 * nothing else is in reach, and inside a line only for a line longer than a chunk. A chunk that
 * starts inside a table repeats the table's header rows.
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions): MarkdownChunk[] {
  const maxChars = Math.max(1, Math.floor(options.maxChunkChars));
  const maxChunks = options.maxChunks ?? Number.POSITIVE_INFINITY;
  const chunks: MarkdownChunk[] = [];
  if (!markdown) return chunks;
  const { lines, info } = describeLines(markdown);
  let start = Math.min(markdown.length, Math.max(0, Math.floor(options.from ?? 0)));
  let line = 0; // the first line starting after `start`
  while (line < info.length && (info[line] as LineInfo).start <= start) line++;
  // A reading that goes on inside a table (at a row's start) needs the table's header rows again.
  const resumedRow = line - 1;
  const resumed = info[resumedRow];
  const resumeHeader = resumed && resumed.start === start && resumed.seam === 0 && resumed.tableRow ? tableHeader(lines, info, resumedRow) : '';
  let prefix = resumeHeader.length <= maxChars / 4 ? resumeHeader : '';
  while (start < markdown.length && chunks.length < maxChunks) {
    const budget = maxChars - prefix.length;
    if (markdown.length - start <= budget) {
      chunks.push({ text: prefix + markdown.slice(start), start, end: markdown.length });
      break;
    }
    const limit = start + budget;
    while (line < info.length && (info[line] as LineInfo).start <= start) line++;
    // The best seam in the second half of the reach wins (ties go to the later one); else the best
    // in the first half; else a cut inside a table or code block.
    const half = start + budget / 2;
    let upper: number | undefined;
    let lower: number | undefined;
    let fallback: number | undefined;
    for (let index = line; index < info.length && (info[index] as LineInfo).start <= limit; index++) {
      const { seam, start: at } = info[index] as LineInfo;
      if (seam === 0) fallback = index;
      else if (at > half) {
        if (upper === undefined || seam >= (info[upper] as LineInfo).seam) upper = index;
      } else if (lower === undefined || seam >= (info[lower] as LineInfo).seam) lower = index;
    }
    const best = upper ?? lower;
    const cutLine = best ?? fallback;
    let end: number;
    let nextPrefix = '';
    if (cutLine !== undefined) {
      end = (info[cutLine] as LineInfo).start;
      if ((info[cutLine] as LineInfo).seam === 0 && (info[cutLine] as LineInfo).tableRow) {
        const header = tableHeader(lines, info, cutLine);
        if (header.length <= maxChars / 4) nextPrefix = header;
      }
    } else {
      // One line longer than a chunk: cut it, at a space when there is one near the end.
      const space = markdown.lastIndexOf(' ', limit - 1);
      end = space > start + budget * 0.8 ? space + 1 : limit;
      // Never between the halves of a surrogate pair (an emoji): a lone half is invalid text that
      // model APIs may reject as a bad request.
      if (end - 1 > start && isLowSurrogate(markdown.charCodeAt(end))) end--;
    }
    chunks.push({ text: prefix + markdown.slice(start, end), start, end });
    start = end;
    prefix = nextPrefix;
  }
  return chunks;
}
