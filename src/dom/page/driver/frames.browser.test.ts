// Runs in headless Chromium (the vitest `browser` project): where each child frame's content sits in this frame's
// viewport, and which frames cannot be seen. The frames are empty srcdoc documents, fixed in CSS pixels.
import { afterEach, describe, expect, it } from 'vitest';
import { frameContentBoxes } from './frames';

/** An iframe fixed at the given edges (its content box), with optional extra style. */
const frame = (id: string, left: number, top: number, width: number, height: number, extra = '') =>
  `<iframe id="${id}" srcdoc="" style="position: fixed; left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px; border: 0; padding: 0; ${extra}"></iframe>`;

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

afterEach(() => {
  for (const dialog of document.querySelectorAll('dialog')) dialog.close();
  document.body.innerHTML = '';
});

describe('frameContentBoxes', () => {
  it('gives the content box of a visible frame, inside its border and padding', () => {
    const { plain, framed } = place(
      frame('plain', 10, 20, 200, 100) + frame('framed', 10, 200, 200, 100, 'border: 5px solid black; padding: 10px 4px 6px 8px;'),
    );
    expect(frameContentBoxes([plain!, framed!])).toEqual([
      { x: 10, y: 20, width: 200, height: 100 },
      { x: 10 + 5 + 8, y: 200 + 5 + 10, width: 200, height: 100 },
    ]);
  });

  it('gives null for a frame that is not rendered, of no size, hidden, or detached', () => {
    const { none, empty, hidden } = place(
      frame('none', 0, 0, 100, 100, 'display: none;') + frame('empty', 0, 0, 0, 100) + frame('hidden', 0, 0, 100, 100, 'visibility: hidden;'),
    );
    const detached = document.createElement('iframe');
    expect(frameContentBoxes([none!, empty!, hidden!, detached])).toEqual([null, null, null, null]);
  });

  it('gives null for a frame that is transparent itself or through an ancestor', () => {
    const { clear, inner } = place(frame('clear', 0, 0, 100, 100, 'opacity: 0;') + `<div style="opacity: 0;">${frame('inner', 200, 0, 100, 100)}</div>`);
    expect(frameContentBoxes([clear!, inner!])).toEqual([null, null]);
  });

  it('gives null for a frame under an overlay, and keeps one the overlay leaves free', () => {
    const { under, beside } = place(
      frame('under', 0, 0, 100, 100) +
        frame('beside', 0, 300, 100, 100) +
        '<div style="position: fixed; left: 0; top: 0; width: 200px; height: 200px; z-index: 3; background: white;"></div>',
    );
    expect(frameContentBoxes([under!, beside!])).toEqual([null, { x: 0, y: 300, width: 100, height: 100 }]);
  });

  it('keeps a frame out of view, which cannot be hit-tested', () => {
    const { below } = place(frame('below', 0, window.innerHeight + 100, 100, 100));
    expect(frameContentBoxes([below!])).toEqual([{ x: 0, y: window.innerHeight + 100, width: 100, height: 100 }]);
  });

  it('gives null for every frame behind an open modal dialog, even beside it, and keeps a frame inside the dialog', () => {
    const { beside, inside, modal } = place(
      `${frame('beside', 0, 0, 100, 100)}<dialog id="modal" style="position: fixed; left: 200px; top: 0; margin: 0; padding: 0; border: 0;">` +
        `<iframe id="inside" srcdoc="" style="display: block; width: 100px; height: 50px; border: 0;"></iframe></dialog>`,
    );
    (modal as HTMLDialogElement).showModal();
    const [besideBox, insideBox] = frameContentBoxes([beside!, inside!]);
    expect(besideBox).toBeNull();
    expect(insideBox).toEqual({ x: 200, y: 0, width: 100, height: 50 });
  });
});
