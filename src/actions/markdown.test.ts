import { describe, expect, it } from 'vitest';
import { chunkMarkdown, htmlToMarkdown, type MarkdownChunk } from './markdown';

describe('htmlToMarkdown', () => {
  it('writes headings, paragraphs and emphasis, with whitespace collapsed', () => {
    const markdown = htmlToMarkdown('<h1>Mugs   and\n  cups</h1><p>Free   shipping\tover <strong>$20</strong>&nbsp;&nbsp;and <em>more</em>.</p><h3>Small</h3>');
    expect(markdown).toBe('# Mugs and cups\n\nFree shipping over **$20** and *more*.\n\n### Small');
  });

  it('writes GitHub tables, with pipes in cells escaped and spanning cells kept on their row', () => {
    const markdown = htmlToMarkdown(
      '<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Mug | A</td><td>$4</td></tr><tr><td colspan="2">Sold out</td></tr></tbody></table>',
    );
    expect(markdown.split('\n')).toEqual(['| Name | Price |', '| --- | --- |', '| Mug \\| A | $4 |', '| Sold out | |']);
  });

  it('writes a table without a header row as a table too', () => {
    const markdown = htmlToMarkdown('<table><tr><td>Colour</td><td>red</td></tr><tr><td>Size</td><td>L</td></tr></table>');
    expect(markdown.split('\n')).toEqual(['| Colour | red |', '| --- | --- |', '| Size | L |']);
  });

  it('keeps list nesting and the start of ordered lists', () => {
    const markdown = htmlToMarkdown('<ul><li>One<ul><li>Nested <b>bold</b></li></ul></li><li>Two</li></ul><ol start="3"><li>Third</li><li>Fourth</li></ol>');
    expect(markdown).toBe('- One\n  - Nested **bold**\n- Two\n\n3. Third\n4. Fourth');
  });

  it('writes links as their text and images as their alt text by default', () => {
    const markdown = htmlToMarkdown('<p>See <a href="https://shop.example/docs">the docs</a> <img src="https://shop.example/logo.png" alt="Shop logo"></p>');
    expect(markdown).toBe('See the docs (image: Shop logo)');
    expect(markdown).not.toContain('https://');
  });

  it('keeps link and image URLs on request, without tracking parameters', () => {
    const markdown = htmlToMarkdown(
      '<p>See <a href="https://shop.example/docs?utm_source=mail&amp;page=2">the docs</a> <img src="https://shop.example/logo.png" alt="Shop logo"></p>',
      { includeLinks: true },
    );
    expect(markdown).toBe('See [the docs](https://shop.example/docs?page=2) ![Shop logo](https://shop.example/logo.png)');
  });

  it('drops empty links and images without alt text, with or without URLs', () => {
    const html =
      '<p>Before <a href="https://shop.example/empty"></a><img src="https://shop.example/pixel.png"> <a href="https://shop.example/"><img src="a.png" alt=""></a> after</p>';
    expect(htmlToMarkdown(html)).toBe('Before after');
    expect(htmlToMarkdown(html, { includeLinks: true })).toBe('Before after');
  });

  it('keeps code blocks as they are', () => {
    expect(htmlToMarkdown('<pre><code>const  a = 1;\n    indented();</code></pre>')).toBe('```\nconst  a = 1;\n    indented();\n```');
  });

  it('cuts absurdly long lines and leaves no blank lines at the ends', () => {
    const markdown = htmlToMarkdown(`<p></p><p>${'x'.repeat(500)}</p><p>short</p><div> </div>`, { maxLineChars: 100 });
    expect(markdown).toBe(`${'x'.repeat(100)} …\n\nshort`);
  });

  it('survives malformed HTML', () => {
    expect(htmlToMarkdown('<p>unclosed <b>bold <i>both</p><div>after</div></li></td>')).toBe('unclosed **bold *both***\n\nafter');
  });

  it('returns an empty string for empty input', () => {
    expect(htmlToMarkdown('')).toBe('');
    expect(htmlToMarkdown('<div>  </div>')).toBe('');
  });
});

/** The chunks' source slices put back together. */
const joined = (markdown: string, chunks: readonly MarkdownChunk[]): string => chunks.map((chunk) => markdown.slice(chunk.start, chunk.end)).join('');

function expectWellFormed(markdown: string, chunks: readonly MarkdownChunk[], maxChunkChars: number): void {
  expect(joined(markdown, chunks)).toBe(markdown);
  chunks.forEach((chunk, index) => {
    expect(chunk.text.length, `chunk ${index}`).toBeLessThanOrEqual(maxChunkChars);
    expect(chunk.text.endsWith(markdown.slice(chunk.start, chunk.end))).toBe(true);
    if (index > 0) expect(chunk.start).toBe(chunks[index - 1]?.end);
  });
}

const paragraph = (word: string, count: number): string => Array.from({ length: count }, () => word).join(' ');

describe('chunkMarkdown', () => {
  it('keeps a short text in one chunk and returns none for an empty one', () => {
    expect(chunkMarkdown('# Title\n\nText', { maxChunkChars: 100 })).toEqual([{ text: '# Title\n\nText', start: 0, end: 13 }]);
    expect(chunkMarkdown('', { maxChunkChars: 100 })).toEqual([]);
  });

  it('cuts before a heading rather than between paragraphs', () => {
    // "## Two" is in the second half of the first chunk's reach, the paragraph after it further on.
    const markdown = ['# One', '', paragraph('alpha', 14), '', '## Two', '', paragraph('beta', 5), '', paragraph('gamma', 10)].join('\n');
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 140 });
    expectWellFormed(markdown, chunks, 140);
    expect(markdown.indexOf('gamma')).toBeLessThan(140);
    expect(chunks[1]?.text.startsWith('## Two')).toBe(true);
  });

  it('cuts between paragraphs rather than between lines', () => {
    const markdown = [paragraph('alpha', 10), paragraph('beta', 10), '', paragraph('gamma', 10), paragraph('delta', 10)].join('\n');
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 150 });
    expectWellFormed(markdown, chunks, 150);
    expect(chunks.map((chunk) => chunk.text.split(' ')[0])).toEqual(['alpha', 'gamma']);
  });

  it('cuts between lines when a paragraph is longer than a chunk', () => {
    const lines = Array.from({ length: 20 }, (_, index) => `line ${index} ${paragraph('word', 5)}`);
    const markdown = lines.join('\n');
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 100 });
    expectWellFormed(markdown, chunks, 100);
    for (const chunk of chunks) expect(chunk.text).toMatch(/^line \d+ /);
    expect(chunks.length).toBeGreaterThan(3);
  });

  it('never cuts inside a table when another seam is in reach', () => {
    // Only table rows lie in the second half of the first chunk's reach: the cut goes before the table.
    const table = ['| Name | Price |', '| --- | --- |', ...Array.from({ length: 10 }, (_, index) => `| Mug ${index} | $${index} |`)].join('\n');
    const markdown = `${paragraph('intro', 12)}\n\n${table}\n\n${paragraph('outro', 12)}`;
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 200 });
    expectWellFormed(markdown, chunks, 200);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.some((chunk) => chunk.text.includes(table))).toBe(true);
  });

  it('repeats the header rows of a table too long for one chunk', () => {
    const rows = Array.from({ length: 40 }, (_, index) => `| Mug ${index} | $${index} |`);
    const markdown = ['| Name | Price |', '| --- | --- |', ...rows].join('\n');
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 200 });
    expectWellFormed(markdown, chunks, 200);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(1)) {
      expect(chunk.text.startsWith('| Name | Price |\n| --- | --- |\n| Mug ')).toBe(true);
      // Whole rows only: every chunk ends at the end of a row.
      expect(markdown.slice(chunk.start, chunk.end)).toMatch(/^\| Mug \d+ \| \$\d+ \|\n(\| Mug \d+ \| \$\d+ \|\n?)*$/);
    }
  });

  it('goes on from an offset as if it had read up to there, header rows and offsets included', () => {
    const rows = Array.from({ length: 40 }, (_, index) => `| Mug ${index} | $${index} |`);
    const markdown = ['| Name | Price |', '| --- | --- |', ...rows].join('\n');
    const all = chunkMarkdown(markdown, { maxChunkChars: 200 });
    const from = all[2]?.start ?? 0;
    expect(chunkMarkdown(markdown, { maxChunkChars: 200, from })).toEqual(all.slice(2));
    expect(chunkMarkdown(markdown, { maxChunkChars: 200, from: markdown.length })).toEqual([]);
  });

  it('does not cut inside a code block when it can cut before it', () => {
    const code = ['```', ...Array.from({ length: 5 }, (_, index) => `call(${index});`), '```'].join('\n');
    const markdown = `${paragraph('before', 15)}\n${code}`;
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 120 });
    expectWellFormed(markdown, chunks, 120);
    expect(chunks[1]?.text.startsWith('```')).toBe(true);
  });

  it('cuts a line longer than a chunk, at a space near the end', () => {
    const markdown = paragraph('word', 100);
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 52 });
    expectWellFormed(markdown, chunks, 52);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text.endsWith('word ')).toBe(true);
  });

  it('never splits an emoji (a surrogate pair) when it cuts inside a line', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const markdown = `a${'😀'.repeat(100)}`;
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 50 });
    expectWellFormed(markdown, chunks, 50);
    for (const chunk of chunks) expect(lone.test(chunk.text), JSON.stringify(chunk)).toBe(false);
    expect(lone.test(htmlToMarkdown(`<p>a${'😀'.repeat(100)}</p>`, { maxLineChars: 50 }))).toBe(false);
  });

  it('cuts a line without spaces at the limit', () => {
    const markdown = 'x'.repeat(250);
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 100 });
    expect(chunks.map((chunk) => [chunk.start, chunk.end])).toEqual([
      [0, 100],
      [100, 200],
      [200, 250],
    ]);
  });

  it('stops after maxChunks, the last end saying where the rest starts', () => {
    const markdown = Array.from({ length: 10 }, (_, index) => `## Part ${index}\n\n${paragraph('text', 10)}`).join('\n\n');
    const all = chunkMarkdown(markdown, { maxChunkChars: 80 });
    const first = chunkMarkdown(markdown, { maxChunkChars: 80, maxChunks: 3 });
    expect(all.length).toBeGreaterThan(3);
    expect(first).toEqual(all.slice(0, 3));
  });

  it('covers random documents exactly, within the limit', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const kinds = [
      () => `# Heading ${Math.floor(random() * 100)}`,
      () => '',
      () => paragraph('lorem', 1 + Math.floor(random() * 40)),
      () => `| cell ${Math.floor(random() * 9)} | ${paragraph('v', Math.floor(random() * 8))} |`,
      () => '```',
      () => `- item ${paragraph('x', Math.floor(random() * 10))}`,
    ];
    for (let document = 0; document < 30; document++) {
      const lines = Array.from({ length: 20 + Math.floor(random() * 80) }, () => (kinds[Math.floor(random() * kinds.length)] as () => string)());
      const markdown = lines.join('\n');
      const maxChunkChars = 60 + Math.floor(random() * 400);
      expectWellFormed(markdown, chunkMarkdown(markdown, { maxChunkChars }), maxChunkChars);
    }
  });
});
