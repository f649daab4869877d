// Page HTML as markdown for the extraction model, and long markdown cut into chunks at its seams
// (headings, then blocks, then list items, then lines). Pure string work: no DOM and no Node API may be used here.

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
  /**
   * Offset of the chunk's first character in the whole markdown. Before the previous chunk's `end`
   * when the cut between them fell inside a block: the characters in between are in both chunks.
   */
  readonly start: number;
  /** Offset just past the chunk's last character in the whole markdown; each chunk ends further on than the one before. */
  readonly end: number;
}

/** Options of {@link chunkMarkdown}. */
export interface ChunkOptions {
  /** The most characters one chunk may hold (the repeated table header included). */
  readonly maxChunkChars: number;
  /** Stop after this many chunks; the last one's `end` is the `from` that reads on. @defaultValue no limit */
  readonly maxChunks?: number | undefined;
  /**
   * Go on where an earlier reading stopped (its last chunk's `end`) instead of the beginning. As a
   * chunk after a cut does, the first chunk starts a little before `from` when `from` is inside a
   * block, so a record cut there is read whole. Offsets stay those of the whole markdown, and a start
   * inside a table repeats the table's header rows.
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
  // Redaction writes a secret's placeholder into page HTML escaped (`&lt;secret&gt;`); markdown then
  // escapes its `<`. The model must read the placeholder as it writes it.
  return tidy(markdown.replace(/\\<(\/?)secret>/g, '<$1secret>'), Math.max(16, options.maxLineChars ?? defaultMaxLineChars));
}

/**
 * How good a place the start of a line is to cut at: 4 before a heading (a list item that opens with
 * one too, as job boards write their postings), 3 before a block (after a blank line, or where a
 * table or code block opens), 2 before a list item, 1 before any other line (inside a paragraph, a
 * list item's own paragraphs), 0 inside a table or code block.
 */
type Seam = 0 | 1 | 2 | 3 | 4;

/** From seam 2 up, a cut falls between blocks (a list item is one): none is split. */
const blockSeam = 2;

interface LineInfo {
  readonly start: number;
  readonly seam: Seam;
  readonly tableRow: boolean;
  /** Offset where the block this line is in starts (its own start for a line that opens one). */
  readonly blockStart: number;
  /** Offset where the next block after this line starts (the markdown's length after the last). */
  readonly blockEnd: number;
}

const tableRow = (line: string): boolean => line.trimStart().startsWith('|');
const tableSeparator = /^\s*\|?\s*:?-{3,}/;
const heading = /^#{1,6}\s/;
const listItem = /^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const headingItem = /^(?:[-*+]|\d{1,9}[.)])\s+#{1,6}\s/;

type Described = Pick<LineInfo, 'start' | 'seam' | 'tableRow'>;

function describeLines(markdown: string): { lines: string[]; info: LineInfo[] } {
  const lines = markdown.split('\n');
  const described: Described[] = [];
  let offset = 0;
  let inFence = false;
  // A list item goes on through blank lines and indented lines: those are its own paragraphs.
  let inListItem = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const previous = index > 0 ? (lines[index - 1] as string) : '';
    const fence = fenceLine.test(line);
    const insideFence = inFence; // this line is inside an open fence (its closing line included)
    if (fence) inFence = !inFence;
    const row = !insideFence && tableRow(line);
    const blank = line.trim() === '';
    const indented = /^\s/.test(line);
    const continuation: boolean = inListItem && !blank && indented;
    let seam: Seam;
    if (insideFence || (row && described[index - 1]?.tableRow)) seam = 0;
    else if (heading.test(line) || headingItem.test(line)) seam = 4;
    else if (continuation) seam = 1;
    else if (!blank && (previous.trim() === '' || fence || row)) seam = 3;
    else if (listItem.test(line)) seam = 2;
    else seam = 1;
    if (!insideFence && !blank) inListItem = listItem.test(line) || continuation;
    described.push({ start: offset, seam, tableRow: row });
    offset += line.length + 1;
  }
  // A line's block runs from the last line at a block seam up to it, to the next one after it.
  const blockEnds: number[] = [];
  let blockEnd = markdown.length;
  for (let index = described.length - 1; index >= 0; index--) {
    blockEnds[index] = blockEnd;
    const line = described[index] as Described;
    if (line.seam >= blockSeam) blockEnd = line.start;
  }
  let blockStart = 0;
  const info = described.map((line, index): LineInfo => {
    if (line.seam >= blockSeam) blockStart = line.start;
    return { ...line, blockStart, blockEnd: blockEnds[index] as number };
  });
  return { lines, info };
}

/** The index of the last line that starts at or before `offset`. */
function lineAt(info: readonly LineInfo[], offset: number): number {
  let low = 0;
  let high = info.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((info[middle] as LineInfo).start <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The header and separator rows of the table that line `row` belongs to, with their line breaks; '' when it has none. */
function tableHeader(lines: readonly string[], info: readonly LineInfo[], row: number): string {
  let first = row;
  while (first > 0 && info[first - 1]?.tableRow) first--;
  const separator = lines[first + 1];
  if (first + 1 >= row || separator === undefined || !tableSeparator.test(separator)) return '';
  return `${lines[first]}\n${separator}\n`;
}

/** A chunk's cut at the start of a line that opens a block or a table row splits nothing: rows are whole too. */
function splitsNothing(line: LineInfo): boolean {
  return line.seam >= blockSeam || (line.seam === 0 && line.tableRow);
}

/**
 * Cuts markdown into chunks of at most `maxChunkChars` characters, at the best seam in reach: the
 * start of a heading, else of a block (a paragraph, a list, a table), else of a list item, else of a
 * line; inside a table or a code block only when nothing else is in reach, and inside a line only
 * for a line longer than a chunk. A block that fits in a chunk is never cut: the chunk ends before
 * it instead. A chunk that starts inside a table repeats the table's header rows.
 *
 * A cut that still falls inside a block (one longer than a chunk, or a run of lines with no seam
 * between its records) makes the chunks overlap: the next chunk starts back at that block's start,
 * at most an eighth of `maxChunkChars` before the cut (at a line's start, or a word's inside a long
 * line), so a record the cut splits is whole in the next chunk. Whoever merges what was read from
 * the chunks must then keep what both read once.
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions): MarkdownChunk[] {
  const maxChars = Math.max(1, Math.floor(options.maxChunkChars));
  const maxChunks = options.maxChunks ?? Number.POSITIVE_INFINITY;
  const overlapChars = Math.floor(maxChars / 8);
  const chunks: MarkdownChunk[] = [];
  const from = Math.min(markdown.length, Math.max(0, Math.floor(options.from ?? 0)));
  if (from >= markdown.length) return chunks;
  const { lines, info } = describeLines(markdown);

  /** Where the chunk after a cut at `end` starts: back inside the block the cut fell in, never at or before `after`. */
  const nextStart = (end: number, after: number): number => {
    const line = info[lineAt(info, end)] as LineInfo;
    if (line.start === end && splitsNothing(line)) return end;
    const back = Math.max(line.blockStart, end - overlapChars, after + 1);
    if (back >= end) return end;
    // The first line start from `back` on: the chunk reads the lines before the cut again.
    const first = lineAt(info, back);
    if ((info[first] as LineInfo).start === back) return back;
    const following = info[first + 1];
    if (following && following.start < end) return following.start;
    if (line.start === end) return end;
    // The cut is inside a line longer than the overlap: from its first word after `back`.
    const space = markdown.indexOf(' ', back);
    return space >= 0 && space + 1 < end ? space + 1 : end;
  };
  /** The header rows to repeat for a chunk starting at `offset`: only at a row's start inside a table. */
  const headerAt = (offset: number): string => {
    const index = lineAt(info, offset);
    const line = info[index] as LineInfo;
    if (line.start !== offset || line.seam !== 0 || !line.tableRow) return '';
    const header = tableHeader(lines, info, index);
    return header.length <= maxChars / 4 ? header : '';
  };

  // Chunks end further on than `readTo`, where the previous one (or the earlier reading) ended.
  let readTo = from;
  let start = from > 0 ? nextStart(from, -1) : 0;
  while (chunks.length < maxChunks) {
    const prefix = headerAt(start);
    const budget = maxChars - prefix.length;
    if (markdown.length - start <= budget) {
      chunks.push({ text: prefix + markdown.slice(start), start, end: markdown.length });
      break;
    }
    const limit = start + budget;
    // The best seam in the second half of the reach wins (ties go to the later one); else the best
    // in the first half; else a cut inside a table or code block.
    const half = start + budget / 2;
    let upper: number | undefined;
    let lower: number | undefined;
    let fallback: number | undefined;
    for (let index = lineAt(info, readTo) + 1; index < info.length && (info[index] as LineInfo).start <= limit; index++) {
      const { seam, start: at } = info[index] as LineInfo;
      if (seam === 0) fallback = index;
      else if (at > half) {
        if (upper === undefined || seam >= (info[upper] as LineInfo).seam) upper = index;
      } else if (lower === undefined || seam >= (info[lower] as LineInfo).seam) lower = index;
    }
    const cutLine = upper ?? lower ?? fallback;
    let end: number;
    if (cutLine !== undefined) {
      const line = info[cutLine] as LineInfo;
      // Inside a block that starts in reach and fits in a chunk: cut before it, the next chunk holds it whole.
      const blockFits = line.blockStart > readTo && line.blockEnd - line.blockStart <= maxChars;
      end = !splitsNothing(line) && blockFits ? line.blockStart : line.start;
    } else {
      // One line longer than a chunk: cut it, at a space when there is one near the end.
      const space = markdown.lastIndexOf(' ', limit - 1);
      end = space > start + budget * 0.8 ? space + 1 : limit;
      // Never between the halves of a surrogate pair (an emoji): a lone half is invalid text that
      // model APIs may reject as a bad request.
      if (end - 1 > readTo && isLowSurrogate(markdown.charCodeAt(end))) end--;
    }
    chunks.push({ text: prefix + markdown.slice(start, end), start, end });
    start = nextStart(end, start);
    readTo = end;
  }
  return chunks;
}

/**
 * Markdown with less to read and the same text: emphasis markers (`**bold**`, `*italic*`,
 * `__bold__`) around words are dropped, trailing spaces cut and blank lines closed up (a line
 * break still parts blocks). Code spans and fenced code keep their characters.
 */
export function compactMarkdown(markdown: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || /^\s*(```|~~~)/.test(line)) {
      out.push(line);
      continue;
    }
    const trimmed = line.replace(/\s+$/, '');
    if (trimmed === '') continue;
    // Outside code spans only: split on backtick runs, odd pieces are code.
    const pieces = trimmed.split(/(`+[^`]*`+)/);
    out.push(
      pieces
        .map((piece, index) =>
          index % 2 === 1
            ? piece
            : piece.replace(/(\*\*|__)(?=\S)([^*_\n]*?\S)\1/g, '$2').replace(/(?<![*\w\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![*\w])/g, '$1'),
        )
        .join(''),
    );
  }
  return out.join('\n');
}
