// Reads the code blocks and relative links of the markdown docs (README.md, docs/**/*.md but docs/api),
// for test/docs/docs.test.ts, which compiles and runs the blocks. It only reads markdown.
// The convention it reads is written for doc authors in docs/contributing-docs.md.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The fence languages that are compiled and run; any other fence (`sh`, `text`, …) is prose. */
export const CHECKED_LANGUAGES = ['ts', 'js'] as const;

/** One ```ts or ```js block of a doc. */
export interface DocBlock {
  /** The doc, relative to the repository, such as `docs/guides/loop.md`. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly language: (typeof CHECKED_LANGUAGES)[number];
  /** The block's code, as written. */
  readonly code: string;
  /** The stand-ins the block uses (`<!-- docs-test: uses llm, browser -->`), from test/docs/prelude.ts. */
  readonly uses: readonly string[];
  /** Why the block is compiled but not run (`<!-- docs-test: compile-only: reason -->`), or undefined when it runs. */
  readonly compileOnly: string | undefined;
}

/** A relative link of a doc: `[text](target)` or `![alt](target)` whose target has no scheme. */
export interface DocLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^<!--\s*docs-test:(.*)-->$/;
const QUICKSTART = /^<!--\s*quickstart:\s*(\S+)\s*-->$/;

/**
 * The checked blocks of one markdown file.
 * @throws an Error naming the file and line of a marker that is malformed, not right above a checked fence,
 *   or of a fence never closed
 */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const trimmed = line.trim();
    const marker = MARKER.exec(trimmed);
    if (marker) {
      const next = FENCE.exec(lines[index + 1] ?? '');
      if (!next || !isChecked(next[3] ?? '')) {
        throw new Error(`${file}:${index + 1}: a \`<!-- docs-test: … -->\` marker must be on the line right above a \`\`\`ts or \`\`\`js fence.`);
      }
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) continue;
    const [, indent = '', ticks = '', language = ''] = fence;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === ticks);
    if (end === -1) throw new Error(`${file}:${index + 1}: this ${ticks}${language} fence is never closed.`);
    if (isChecked(language)) {
      const { uses, compileOnly } = readMarker(lines[index - 1]?.trim() ?? '', file, index);
      const code = lines
        .slice(index + 1, end)
        .map((codeLine) => (codeLine.startsWith(indent) ? codeLine.slice(indent.length) : codeLine))
        .join('\n');
      blocks.push({ file, line: index + 1, language, code: `${code}\n`, uses, compileOnly });
    }
    index = end;
  }
  return blocks;
}

function isChecked(language: string): language is DocBlock['language'] {
  return (CHECKED_LANGUAGES as readonly string[]).includes(language);
}

function readMarker(line: string, file: string, fenceIndex: number): Pick<DocBlock, 'uses' | 'compileOnly'> {
  const quickstart = QUICKSTART.exec(line);
  // The README's quick starts are whole programs; test/package/quickstart.test.ts runs the one that needs a key
  // against a local server that refuses it, from the packed package.
  if (quickstart) return { uses: [], compileOnly: quickstart[1] === 'scripted' ? undefined : 'a quick start that needs a key: quickstart.test.ts runs it' };
  const marker = MARKER.exec(line);
  if (!marker) return { uses: [], compileOnly: undefined };
  let uses: string[] = [];
  let compileOnly: string | undefined;
  for (const clause of (marker[1] ?? '').split(';').map((part) => part.trim())) {
    if (clause.startsWith('uses '))
      uses = clause
        .slice('uses '.length)
        .split(',')
        .map((name) => name.trim());
    else if (clause.startsWith('compile-only:') && clause.length > 'compile-only:'.length + 1) compileOnly = clause.slice('compile-only:'.length).trim();
    else
      throw new Error(
        `${file}:${fenceIndex}: cannot read the clause ${JSON.stringify(clause)}; write \`<!-- docs-test: uses NAME, NAME -->\` and/or \`compile-only: why\`, separated by \`;\`.`,
      );
  }
  return { uses, compileOnly };
}

const LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** The links of a markdown file whose target is relative (no scheme, not `#anchor` alone, not `mailto:`), outside code. */
export function extractRelativeLinks(markdown: string, file: string): DocLink[] {
  const links: DocLink[] = [];
  let inFence: string | undefined;
  markdown.split(/\r?\n/).forEach((line, index) => {
    const fence = FENCE.exec(line);
    if (fence) {
      if (inFence === undefined) inFence = fence[2];
      else if (line.trim() === inFence) inFence = undefined;
      return;
    }
    if (inFence !== undefined) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(LINK)) {
      const target = match[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** README.md and every .md file under docs/ but docs/api, relative to `root`. */
export function docFiles(root: string): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && path !== join('docs', 'api')) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(relative('.', path));
    }
  };
  walk('docs');
  return found.sort();
}

/** Every checked block of the docs under `root`. */
export function readDocBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((file) => extractBlocks(readFileSync(join(root, file), 'utf8'), file));
}

/** The anchors GitHub gives the headings of `markdown` (`## Vercel AI SDK (\`plannav/ai-sdk\`)` → `vercel-ai-sdk-plannavai-sdk`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const fence = FENCE.exec(line);
    if (fence) {
      if (inFence === undefined) inFence = fence[2];
      else if (line.trim() === inFence) inFence = undefined;
      continue;
    }
    const heading = inFence === undefined ? /^#{1,6}\s+(.*)$/.exec(line) : null;
    if (heading)
      anchors.add(
        (heading[1] as string)
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, '')
          .replace(/\s/g, '-'),
      );
  }
  return anchors;
}
