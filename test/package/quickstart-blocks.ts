// Finds the README's quick-start code blocks, which test/package/quickstart.test.ts compiles and runs
// as a user would: a ```ts fence on the line right after `<!-- quickstart: <name> -->`.
// It only reads markdown; it knows nothing of what the blocks do.

/** The quick starts the README must carry: `scripted` runs (no key), `openai` only compiles (it needs a key). */
export const QUICKSTART_NAMES = ['scripted', 'openai'] as const;

/** One quick-start name. */
export type QuickstartName = (typeof QUICKSTART_NAMES)[number];

const FORMAT = 'a line `<!-- quickstart: NAME -->` with a ```ts fence on the very next line';

/**
 * The code of each quick-start block of `markdown`, by name.
 * @param source where the markdown came from, for the error messages
 * @throws an Error naming the block and the expected format when a block is missing, repeated,
 *   not followed by a ```ts fence, or not closed
 */
export function extractQuickstartBlocks(markdown: string, source = 'README.md'): Record<QuickstartName, string> {
  const lines = markdown.split(/\r?\n/);
  const found: Partial<Record<QuickstartName, string>> = {};
  for (const name of QUICKSTART_NAMES) {
    const markers = lines.flatMap((line, index) => (line.trim() === `<!-- quickstart: ${name} -->` ? [index] : []));
    if (markers.length === 0) {
      throw new Error(`${source} has no \`${name}\` quick start: the test expects ${FORMAT.replace('NAME', name)} (see test/package/quickstart.test.ts).`);
    }
    if (markers.length > 1)
      throw new Error(
        `${source} has ${markers.length} \`<!-- quickstart: ${name} -->\` markers (lines ${markers.map((index) => index + 1).join(', ')}); keep one.`,
      );
    const marker = markers[0] as number;
    if (lines[marker + 1]?.trim() !== '```ts') {
      throw new Error(
        `${source} line ${marker + 1}: \`<!-- quickstart: ${name} -->\` must be followed on the next line by a \`\`\`ts fence; found ${JSON.stringify(lines[marker + 1] ?? '(end of file)')}.`,
      );
    }
    const end = lines.findIndex((line, index) => index > marker + 1 && line.trim() === '```');
    if (end === -1) throw new Error(`${source} line ${marker + 2}: the \`${name}\` quick start's \`\`\`ts block is never closed.`);
    found[name] = `${lines.slice(marker + 2, end).join('\n')}\n`;
  }
  return found as Record<QuickstartName, string>;
}
