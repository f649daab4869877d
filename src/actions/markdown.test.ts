import { describe, expect, it } from 'vitest';
import { chunkMarkdown, compactMarkdown, htmlToMarkdown, type MarkdownChunk } from './markdown';

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

/** The chunks' source slices put back together, each character once (a chunk may start inside the previous one). */
const joined = (markdown: string, chunks: readonly MarkdownChunk[]): string =>
  chunks.map((chunk, index) => markdown.slice(Math.max(chunk.start, chunks[index - 1]?.end ?? 0), chunk.end)).join('');

function expectWellFormed(markdown: string, chunks: readonly MarkdownChunk[], maxChunkChars: number): void {
  expect(joined(markdown, chunks)).toBe(markdown);
  chunks.forEach((chunk, index) => {
    expect(chunk.text.length, `chunk ${index}`).toBeLessThanOrEqual(maxChunkChars);
    expect(chunk.text.endsWith(markdown.slice(chunk.start, chunk.end))).toBe(true);
    const previous = chunks[index - 1];
    if (!previous) return;
    // Each chunk goes further, and starts at most an eighth of a chunk before the previous one's end.
    expect(chunk.start, `chunk ${index}`).toBeGreaterThan(previous.start);
    expect(chunk.end, `chunk ${index}`).toBeGreaterThan(previous.end);
    expect(chunk.start, `chunk ${index}`).toBeLessThanOrEqual(previous.end);
    expect(previous.end - chunk.start, `chunk ${index}`).toBeLessThanOrEqual(maxChunkChars / 8);
  });
}

/** The chunks that hold `record` whole. */
const holding = (chunks: readonly MarkdownChunk[], record: string): number => chunks.filter((chunk) => chunk.text.includes(record)).length;

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
    const from = all[1]?.end ?? 0;
    expect(chunkMarkdown(markdown, { maxChunkChars: 200, from })).toEqual(all.slice(2));
    expect(chunkMarkdown(markdown, { maxChunkChars: 200, from: markdown.length })).toEqual([]);
  });

  it('cuts between the records of a listing whose items are a heading and paragraphs, with no blank line between items', () => {
    // As job boards render: each item a heading link, then company, place and salary as paragraphs;
    // the blank lines are inside the items, the item starts follow a line of the previous item.
    const items = Array.from(
      { length: 60 },
      (_, index) => `<li><h2><a href="/job/${index}">Job ${index}</a></h2><p>Company ${index}</p><p>City ${index % 7}</p><p>$${index},000 a year</p></li>`,
    );
    const markdown = htmlToMarkdown(`<h1>Jobs</h1><ol>${items.join('')}</ol>`, { includeLinks: true });
    expect(markdown).toContain('1. ## [Job 0](/job/0)\n\n   Company 0\n\n   City 0\n\n   $0,000 a year\n2. ## [Job 1]');
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 1000 });
    expectWellFormed(markdown, chunks, 1000);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(1)) expect(chunk.text).toMatch(/^\d+\. ## \[Job \d+\]/);
    // Cut between items, the parts need not share anything.
    chunks.slice(1).forEach((chunk, index) => expect(chunk.start).toBe(chunks[index]?.end));
    // Items from 10 on are indented one space more ("10. ").
    const unindented = chunks.map((chunk) => ({ ...chunk, text: chunk.text.replace(/\n +/g, '\n') }));
    for (let index = 0; index < 60; index++) {
      const record = `## [Job ${index}](/job/${index})\n\nCompany ${index}\n\nCity ${index % 7}\n\n$${index},000 a year`;
      expect(holding(unindented, record), `Job ${index}`).toBe(1);
    }
  });

  it('cuts before a paragraph that fits in a chunk rather than inside it', () => {
    const block = Array.from({ length: 10 }, (_, index) => `line ${index} ${paragraph('word', 4)}`).join('\n');
    const markdown = `${paragraph('intro', 10)}\n\n${block}\n\n${paragraph('outro', 10)}`;
    expect(block.length).toBeGreaterThan(200);
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 300 });
    expectWellFormed(markdown, chunks, 300);
    expect(holding(chunks, block)).toBe(1);
  });

  it('makes parts overlap where records have no seam between them, so each record is whole in a part', () => {
    // One paragraph of lines (a listing of <br>-separated fields): any line could start a record.
    const records = Array.from({ length: 80 }, (_, index) => `**Job ${index}**\nCompany ${index}\n$${index},000 a year`);
    const markdown = `# Jobs\n\n${records.join('\n')}`;
    const chunks = chunkMarkdown(markdown, { maxChunkChars: 800 });
    expectWellFormed(markdown, chunks, 800);
    expect(chunks.length).toBeGreaterThan(3);
    chunks.slice(1).forEach((chunk, index) => expect(chunk.start, `chunk ${index + 1}`).toBeLessThan(chunks[index]?.end ?? 0));
    for (const [index, record] of records.entries()) expect(holding(chunks, record), `Job ${index}`).toBeGreaterThanOrEqual(1);
    // Going on from where a reading stopped reads the same parts, the overlap included.
    expect(chunkMarkdown(markdown, { maxChunkChars: 800, from: chunks[1]?.end })).toEqual(chunks.slice(2));
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

describe('compactMarkdown', () => {
  it('drops emphasis around words and blank lines, keeps the text, links, lists, code and lone stars', () => {
    const markdown = [
      '# Catalog',
      '',
      '[Blue teapot](/item/1)   ',
      '',
      'Seller: *Oskar Nowak* | **$528** | __rare__',
      '',
      '- 2 * 3 = 6, a_b_c and snake_case_name stay',
      '',
      '`**code**` and **bold `x`**',
      '```',
      '**in a fence**',
      '',
      '```',
    ].join('\n');
    expect(compactMarkdown(markdown)).toBe(
      [
        '# Catalog',
        '[Blue teapot](/item/1)',
        'Seller: Oskar Nowak | $528 | rare',
        '- 2 * 3 = 6, a_b_c and snake_case_name stay',
        '`**code**` and **bold `x`**',
        '```',
        '**in a fence**',
        '',
        '```',
      ].join('\n'),
    );
  });
});
