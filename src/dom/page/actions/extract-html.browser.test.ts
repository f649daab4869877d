// Runs in headless Chromium (the vitest `browser` project): a page's visible content as the small, clean HTML extract_content converts to markdown.
import { afterEach, describe, expect, it } from 'vitest';
import { installRecorder } from '../recorder';
import { extractHtml } from './extract-html';
import { place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

const limits = { maxChars: 100_000, maxNodes: 10_000 };

/** The page's HTML inside the body's own block. */
function bodyHtml(): string {
  return extractHtml(limits).html.replace(/^<div>([\s\S]*)<\/div>$/, '$1');
}

/** The HTML of the page made of `html`, as {@link bodyHtml} gives it. */
function htmlOf(html: string): string {
  place(html);
  return bodyHtml();
}

/** Waits (bounded) until the page's images have loaded or failed: until then they have no size. */
async function imagesSettled(): Promise<void> {
  for (let attempt = 0; attempt < 100 && [...document.images].some((image) => !image.complete); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('extractHtml', () => {
  it('writes headings, paragraphs, lists and emphasis in a small vocabulary', () => {
    expect(
      htmlOf(
        '<h2>Mugs</h2><p>Blue <b>mug</b> <i>now</i> <kbd>$12</kbd></p><ol start="3"><li>one</li></ol><ul><li>two</li></ul><dl><dt>Term</dt><dd>Meaning</dd></dl>',
      ),
    ).toBe(
      '<h2>Mugs</h2><p>Blue <strong>mug</strong> <em>now</em> <code>$12</code></p><ol start="3"><li>one</li></ol><ul><li>two</li></ul><div><p><strong>Term</strong></p><p>Meaning</p></div>',
    );
  });

  it('keeps links and images with absolute URLs, and drops script links and jumps within the page', async () => {
    place(
      '<a href="/docs">Docs</a> <a href="javascript:void 0">Run</a> <a href="#top">Top</a> <a>Bare</a> <img alt="Logo" src="/logo.png"> <img alt="Inline" src="data:image/png;base64,AA==">',
    );
    await imagesSettled();
    const html = bodyHtml();
    expect(html).toContain(`<a href="${new URL('/docs', document.baseURI).href}">Docs</a>`);
    expect(html).toContain(' Run ');
    expect(html).toContain(' Top ');
    expect(html).toContain(' Bare ');
    expect(html).toContain(`<img alt="Logo" src="${new URL('/logo.png', document.baseURI).href}">`);
    expect(html).toContain(' Inline ');
  });

  it('writes form fields as bracketed text, and nothing for hidden, password and file inputs', async () => {
    place(
      '<select><option>Small</option><option selected>Large</option></select><textarea>Note</textarea><input type="checkbox" checked><input type="radio">' +
        '<input type="submit" value="Send"><input type="image" alt="Go" style="width: 40px; height: 20px"><input value="typed"><input type="password" value="secret"><input type="hidden" value="h"><input type="file">',
    );
    (document.querySelector('textarea') as HTMLTextAreaElement).value = 'Note';
    await imagesSettled();
    const html = extractHtml(limits).html;
    for (const part of ['(selected: Large; options: Small / Large)', '(field: Note)', '(checked)', '(not checked)', ' Send ', ' Go ', '(field: typed)'])
      expect(html).toContain(part);
    for (const part of ['secret', '"h"', 'file']) expect(html).not.toContain(part);
  });

  it('leaves out what a reader cannot see', () => {
    const html = htmlOf(
      '<p>Shown</p><p style="display: none">None</p><p style="opacity: 0">Transparent</p><p aria-hidden="true">Aria</p>' +
        '<p style="position: absolute; clip-path: inset(50%)">Clipped</p><p style="width: 1px; height: 1px; overflow: hidden">Tiny</p>' +
        '<p style="position: absolute; left: -9999px">Offscreen</p><p style="text-indent: -9999px">Indented</p><p style="visibility: hidden">Invisible</p>' +
        '<svg><text>Drawing</text></svg><details><summary>Summary</summary>Details body</details><p style="font-size: 0">Zero</p>',
    );
    expect(html).toContain('<p>Shown</p>');
    expect(html).toContain('<p><strong>Summary</strong></p>');
    for (const hidden of ['None', 'Transparent', 'Aria', 'Clipped', 'Tiny', 'Offscreen', 'Indented', 'Invisible', 'Drawing', 'Details body', 'Zero'])
      expect(html).not.toContain(hidden);
  });

  it('keeps preformatted text as it is and flattens tables into one line per cell', () => {
    expect(htmlOf('<pre>a  <span>b</span>\n c</pre>')).toBe('<pre>a  b\n c</pre>');
    expect(htmlOf('<table><tr><th colspan="2">Head</th></tr><tr><td><p>One</p><p>Two</p></td><td><ul><li>x</li><li>y</li></ul><hr></td></tr></table>')).toBe(
      '<table><tbody><tr><th colspan="2">Head</th></tr><tr><td>One<br>Two</td><td>• x<br>• y</td></tr></tbody></table>',
    );
    expect(htmlOf('<table><tr><td><table><tr><td>inner</td><td>cell</td></tr></table></td></tr></table>')).toBe(
      '<table><tbody><tr><td>inner cell</td></tr></tbody></table>',
    );
  });

  it('walks open and closed shadow roots and what their slots show', () => {
    installRecorder();
    const { open, closed } = place('<div id="open"><b>slotted</b></div><div id="closed"></div>');
    open!.attachShadow({ mode: 'open' }).innerHTML = '<p>Open <slot></slot></p>';
    closed!.attachShadow({ mode: 'closed' }).innerHTML = '<p>Closed</p>';
    expect(bodyHtml()).toBe('<div><p>Open <strong>slotted</strong></p></div><div><p>Closed</p></div>');
  });

  it('stops at its character and node bounds and says the end is missing', () => {
    place('<p>paragraph of text</p>'.repeat(200));
    const byChars = extractHtml({ maxChars: 10, maxNodes: 10_000 });
    expect(byChars.truncated).toBe(true);
    expect(byChars.html.length).toBeLessThanOrEqual(1000);
    const byNodes = extractHtml({ maxChars: 100_000, maxNodes: 10 });
    expect(byNodes.truncated).toBe(true);
    expect(byNodes.html.match(/<p>/g)?.length).toBeLessThan(60);
    expect(extractHtml(limits)).toMatchObject({ url: location.href, title: document.title, truncated: false });
  });
});
