// Every ```ts and ```js block of README.md and docs/ (docs/api aside) is compiled, all in one tsc program, against
// the package's entries as a user imports them ('plannav', 'plannav/testing', …, resolved to src/), then run, one by
// one in this process, against 127.0.0.1 only (stand-ins of test/docs/prelude.ts). A failure names the doc and line.
// Also: every relative link of the docs points at a file that exists, and the README (which npm shows without the
// repository) has only absolute links, whose repository files exist. The convention: docs/contributing-docs.md.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docFiles, extractBlocks, extractRelativeLinks, headingAnchors, readDocBlocks, type DocBlock } from './doc-blocks';
import { closeStandIns, stopShop } from './prelude';

const root = resolve(import.meta.dirname, '../..');
const generated = join(root, '.tmp/docs-blocks');
const REPOSITORY = 'https://github.com/plannav/plannav';

/** The name of a block's generated file: its doc and line, so tsc's messages and stacks name them too. */
function fileOf(block: DocBlock): string {
  return `${block.file.replace(/[/.]/g, '_')}_L${block.line}.${block.language}`;
}

/** Line 1 of a generated file: the stand-ins it uses, then the block from line 2, so block line n is doc line fence + n. */
function headerOf(block: DocBlock): string {
  if (block.uses.length === 0) return 'export {};';
  const names = block.uses.join(', ');
  return `import { standIns as __standIns } from '../../test/docs/prelude'; const { ${names} } = await __standIns([${block.uses.map((name) => `'${name}'`).join(', ')}]);`;
}

/** tsconfig.json's paths, moved to the generated folder. */
function pathsFor(folder: string): Record<string, string[]> {
  const read = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const paths = (read.config as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
  return Object.fromEntries(Object.entries(paths).map(([name, targets]) => [name, targets.map((target) => relative(folder, join(root, target)))]));
}

function writeProgram(blocks: readonly DocBlock[]): void {
  mkdirSync(generated, { recursive: true });
  // The blocks of an earlier run go (a block moved in its doc changes its name).
  for (const name of readdirSync(generated)) rmSync(join(generated, name));
  for (const block of blocks) writeFileSync(join(generated, fileOf(block)), `${headerOf(block)}\n${block.code}`);
  writeFileSync(
    join(generated, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { paths: pathsFor(generated), noEmit: true, noUnusedLocals: false },
      files: blocks.map(fileOf),
    }),
  );
}

/**
 * The compiler's messages about the blocks, each with the doc's file and line instead of the generated file's. Only the
 * blocks are checked, in this process: what they import (src/) is typed as they use it, and `npm run typecheck`
 * compiles the whole of it already.
 */
function compileErrors(blocks: readonly DocBlock[]): string[] {
  const read = ts.readConfigFile(join(generated, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, generated);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const messages = [...config.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((diagnostic) =>
    ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '),
  );
  for (const block of blocks) {
    const source = program.getSourceFile(join(generated, fileOf(block)));
    if (!source) {
      messages.push(`${block.file}:${block.line}: the block is not in the program`);
      continue;
    }
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      messages.push(
        `${block.file}:${block.line + line}:${character + 1}: error TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
      );
    }
  }
  return messages;
}

describe('the doc-block extractor', () => {
  it('takes ```ts and ```js blocks with their line and marker, and leaves other fences as prose', () => {
    const markdown = [
      '# Title', // 1
      '```sh', // 2
      'npm test', // 3
      '```', // 4
      '<!-- docs-test: uses llm, browser -->', // 5
      '```ts', // 6
      'await run(llm, browser);', // 7
      '```', // 8
      '  <!-- docs-test: compile-only: needs a key -->', // 9
      '  ```js', // 10
      '  call();', // 11
      '  ```', // 12
    ].join('\n');
    expect(extractBlocks(markdown, 'docs/x.md')).toEqual([
      { file: 'docs/x.md', line: 6, language: 'ts', code: 'await run(llm, browser);\n', uses: ['llm', 'browser'], compileOnly: undefined },
      { file: 'docs/x.md', line: 10, language: 'js', code: 'call();\n', uses: [], compileOnly: 'needs a key' },
    ]);
  });

  it('refuses a marker that is not right above a checked fence, one it cannot read, and a fence never closed', () => {
    expect(() => extractBlocks('<!-- docs-test: uses llm -->\n\n```ts\nx\n```\n', 'a.md')).toThrow(
      'a.md:1: a `<!-- docs-test: … -->` marker must be on the line right above',
    );
    expect(() => extractBlocks('<!-- docs-test: run twice -->\n```ts\nx\n```\n', 'a.md')).toThrow('a.md:1: cannot read the clause "run twice"');
    expect(() => extractBlocks('text\n```ts\nx\n', 'a.md')).toThrow('a.md:2: this ```ts fence is never closed.');
  });

  it('names headings as GitHub anchors them', () => {
    expect([
      ...headingAnchors('# Title\n## Vercel AI SDK (`plannav/ai-sdk`)\n```sh\n# not a heading\n```\n### Model cassettes: a real model once, then offline'),
    ]).toEqual(['title', 'vercel-ai-sdk-plannavai-sdk', 'model-cassettes-a-real-model-once-then-offline']);
  });

  it('finds relative links outside code, and leaves absolute ones and anchors', () => {
    const markdown = '[a](guides/loop.md#events) [b](https://x.example/) [c](#top) `[d](no.md)`\n```md\n[e](no.md)\n```\n![f](../demo-run.gif)';
    expect(extractRelativeLinks(markdown, 'docs/index.md')).toEqual([
      { file: 'docs/index.md', line: 1, target: 'guides/loop.md#events' },
      { file: 'docs/index.md', line: 5, target: '../demo-run.gif' },
    ]);
  });
});

describe('the links of the docs', () => {
  const files = docFiles(root);

  /** Why `path` (in the repository, maybe with an `anchor`) leads nowhere, or undefined when it exists. */
  function deadEnd(path: string, anchor: string | undefined): string | undefined {
    const full = join(root, path);
    if (!existsSync(full)) return 'no such file';
    if (anchor && path.endsWith('.md') && !headingAnchors(readFileSync(full, 'utf8')).has(anchor)) return `no heading #${anchor} in ${path}`;
    return undefined;
  }

  it('relative links point at files, and at headings, that exist', () => {
    const dead = files
      .filter((file) => file !== 'README.md')
      .flatMap((file) => extractRelativeLinks(readFileSync(join(root, file), 'utf8'), file))
      .flatMap((link) => {
        const [path = '', anchor] = link.target.split('#');
        const why = deadEnd(path === '' ? link.file : join(dirname(link.file), decodeURIComponent(path)), anchor);
        return why ? [`${link.file}:${link.line}: ${link.target}: ${why}`] : [];
      });
    expect(dead, 'these links lead nowhere').toEqual([]);
  });

  it('the README links only absolutely (npm shows it without the repository), and its links into the repository exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const relativeLinks = extractRelativeLinks(readme, 'README.md').map((link) => `README.md:${link.line}: ${link.target}`);
    expect(relativeLinks, `write these as ${REPOSITORY}/blob/main/<path>`).toEqual([]);
    const intoRepository = [
      ...readme.matchAll(
        /https:\/\/(?:github\.com\/plannav\/plannav\/(?:blob|tree)\/main|raw\.githubusercontent\.com\/plannav\/plannav\/main)\/([^)#\s]+)(?:#([^)\s]+))?/g,
      ),
    ];
    expect(intoRepository.length).toBeGreaterThan(5);
    const missing = intoRepository.flatMap((match) => {
      const why = deadEnd(match[1] as string, match[2]);
      return why ? [`${match[0]}: ${why}`] : [];
    });
    expect(missing, 'the README links to these repository paths, which do not exist').toEqual([]);
  });
});

describe('the code blocks of README.md and docs/', { timeout: 600_000 }, () => {
  const blocks = readDocBlocks(root);
  const runnable = blocks.filter((block) => block.compileOnly === undefined);
  writeProgram(blocks);

  // What a reader's shell would have: the blocks only construct the clients, so no key is ever sent anywhere.
  const environment: Record<string, string> = {
    OPENAI_API_KEY: 'sk-docs-test',
    ANTHROPIC_API_KEY: 'sk-ant-docs-test',
    GEMINI_API_KEY: 'docs-test',
    DEEPSEEK_API_KEY: 'docs-test',
    GROQ_API_KEY: 'docs-test',
    AZURE_OPENAI_API_KEY: 'docs-test',
    BANK_PASSWORD: 'correct horse battery',
    BANK_TOTP_SEED: 'JBSWY3DPEHPK3PXP',
  };
  const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));

  beforeAll(() => {
    Object.assign(process.env, environment);
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await stopShop();
  });

  it(`all ${blocks.length} compile in one program (lib ES2023 and DOM, strict), against the package's entries`, () => {
    expect(blocks.length).toBeGreaterThan(30);
    const errors = compileErrors(blocks);
    console.log(
      `docs: ${blocks.length} blocks compiled, ${runnable.length} run, ${blocks.length - runnable.length} compile-only:\n${blocks
        .filter((block) => block.compileOnly !== undefined)
        .map((block) => `  ${block.file}:${block.line}: ${block.compileOnly}`)
        .join('\n')}`,
    );
    expect(errors, `These doc blocks do not compile:\n${errors.join('\n')}`).toEqual([]);
  });

  for (const block of runnable) {
    it(`${block.file}:${block.line} runs`, async () => {
      const path = join(generated, fileOf(block));
      const home = process.cwd();
      const folder = mkdtempSync(join(tmpdir(), 'plannav-docs-'));
      process.chdir(folder);
      process.exitCode = undefined;
      try {
        await import(`${pathToFileURL(path).href}?run=${Date.now()}`);
        expect(process.exitCode ?? 0, `${block.file}:${block.line} set process.exitCode`).toBe(0);
      } catch (error) {
        throw new Error(`${block.file}:${block.line}: the block threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, {
          cause: error,
        });
      } finally {
        process.exitCode = undefined;
        process.chdir(home);
        await closeStandIns();
        rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
