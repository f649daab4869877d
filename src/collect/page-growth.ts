// What a page added since an earlier reading of it (after a "load more" or a scroll), found by a
// diff of the two readings' HTML block by block, so that only that is sent to the extraction model. Pure string work.

import { diffArrays } from 'diff';

/**
 * Blocks the page's cleaned HTML (the page runtime's `extractHtml`) is cut into: each starts at
 * one of these tags, as a markdown line would, or where a list or table ends (so the end of a list
 * is not part of its last record, which a "load more" makes a record like the others). Its text and
 * attributes are escaped, so every `<` opens a tag.
 */
const blockStart = /(?=<(?:h[1-6]|p|blockquote|pre|ul|ol|li|table|caption|thead|tbody|tfoot|tr|br|hr)[\s>]|<\/(?:ul|ol|table)>)/;

/** Blocks that open a record of a listing: a read that starts at one holds that record whole. */
const recordStart = /^<(?:h[1-6]|li|tr)[\s>]/;

/** How many blocks around each added run are read too. */
const contextBlocks = 3;

/**
 * The HTML cut into blocks. A block without text (the `<li>` before a posting's heading) joins the
 * next one: alone, the same in every record, it would let the diff pair a new record's start with an old one's.
 */
function blocksOf(html: string): string[] {
  const blocks: string[] = [];
  let pending = '';
  for (const piece of html.split(blockStart)) {
    pending += piece;
    if (pending.replace(/<[^>]*>/g, '').trim() === '') continue;
    blocks.push(pending);
    pending = '';
  }
  // Tags after the last text belong to the last block.
  if (pending) blocks.push(`${blocks.pop() ?? ''}${pending}`);
  return blocks;
}

/**
 * The part of `after` that `before` did not show: each run of added blocks, with up to three blocks
 * before it (back to a record start, none when the run opens with one) and after it (up to the next
 * record start), so a record whose first or last block the diff paired with an old one is read whole. A record read whole from those
 * blocks is one the caller already has. `undefined` when more than half of `before` is gone from
 * `after` (the site re-rendered the list in another order, or replaced its records rather than
 * adding to them): then the page is read whole. `''` when nothing was added.
 */
export function addedPart(before: string, after: string): string | undefined {
  const old = blocksOf(before);
  const current = blocksOf(after);
  const ranges: { from: number; to: number }[] = [];
  // The diff's edits are twice the blocks removed plus the growth, so more than `current.length`
  // edits means more than half of `old` is gone: the diff gives up there, not after its whole
  // quadratic search on a page the site rendered anew.
  const changes = diffArrays(old, current, { maxEditLength: current.length });
  if (!changes) return undefined;
  let removed = 0;
  let index = 0;
  for (const change of changes) {
    const count = change.value.length;
    if (change.removed) {
      removed += count;
      continue;
    }
    if (change.added) {
      let from = index;
      // A run that opens with a record's start needs nothing before it.
      for (let back = index - 1; back >= Math.max(0, index - contextBlocks) && !recordStart.test(current[from] as string); back--) from = back;
      let to = index + count;
      while (to < Math.min(current.length, index + count + contextBlocks) && !recordStart.test(current[to] as string)) to++;
      const last = ranges[ranges.length - 1];
      if (last && from <= last.to) last.to = Math.max(last.to, to);
      else ranges.push({ from, to });
    }
    index += count;
  }
  if (removed * 2 > old.length) return undefined;
  return ranges.map(({ from, to }) => current.slice(from, to).join('')).join('');
}
