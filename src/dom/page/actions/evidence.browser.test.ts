// Runs in headless Chromium (the vitest `browser` project): a page's text split into what a person
// can read and what only a machine reads, for the answer check.
import { afterEach, describe, expect, it } from 'vitest';
import { textEvidence } from './evidence';
import { place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
  document.body.removeAttribute('style');
});

const read = () => textEvidence({ maxChars: 100_000 });

describe('textEvidence', () => {
  it('reads ordinary text, light grey text and text over an image as seen', () => {
    place(
      '<h1>Blue teapot</h1><p>Price: <b>$24.99</b></p><p style="color: #bbb">In stock</p>' +
        '<div style="background: url(data:image/png;base64,iVBORw0KGgo=) #fff; color: #fff">Banner</div>' +
        '<p style="color: #fff; background: #fff; text-shadow: 0 0 2px #000">Outlined</p>',
    );
    const { seen, unseen } = read();
    expect(seen).toBe('Blue teapot Price: $24.99 In stock Banner Outlined');
    expect(unseen).toBe('');
  });

  it('reads light text laid over a dark box or an image that is not its ancestor as seen (a hero banner)', () => {
    place(
      '<div style="position: relative; height: 80px">' +
        '<div style="position: absolute; inset: 0; background: #123"></div>' +
        '<p style="position: relative; color: #fff">Now $99</p></div>' +
        '<div style="position: relative; height: 80px">' +
        '<img style="position: absolute; inset: 0; width: 100%; height: 100%" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">' +
        '<p style="position: relative; color: #fff">Sale ends Friday</p></div>',
    );
    expect(read().seen).toBe('Now $99 Sale ends Friday');
  });

  it('reads text no person can see as unseen: background colour, tiny font, hidden, faded, clipped, off the page', () => {
    place(
      '<p>Visible</p>' +
        '<p style="color: #fff">white on white</p>' +
        '<div style="background: #123456"><span style="color: rgb(18, 52, 86)">same as its box</span></div>' +
        '<p style="font-size: 3px">tiny</p>' +
        '<p style="display: none">display none</p>' +
        '<p style="visibility: hidden">visibility hidden</p>' +
        '<div style="opacity: 0.3"><p style="opacity: 0.2">faded</p></div>' +
        '<p style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)">screen reader only</p>' +
        '<p style="position: absolute; left: -9999px">off the page</p>',
    );
    const { seen, unseen } = read();
    expect(seen).toBe('Visible');
    for (const text of ['white on white', 'same as its box', 'tiny', 'display none', 'visibility hidden', 'faded', 'screen reader only', 'off the page'])
      expect(unseen).toContain(text);
  });

  it('reads alt, aria-label, title and hidden inputs as unseen, never scripts or styles', () => {
    place(
      '<img alt="a photo of tea" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button aria-label="Close dialog">x</button>' +
        '<abbr title="kilogram">kg</abbr><input type="hidden" value="token-123"><script>var secret = 1;</script><style>p{}</style>',
    );
    const { seen, unseen } = read();
    expect(seen).toBe('x kg');
    expect(unseen).toBe('a photo of tea Close dialog kilogram token-123');
  });

  it('keeps to the bound on characters', () => {
    place(`<p>${'word '.repeat(1000)}</p>`);
    expect(textEvidence({ maxChars: 50 }).seen).toHaveLength(50);
  });
});
