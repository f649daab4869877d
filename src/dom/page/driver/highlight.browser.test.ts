// Runs in headless Chromium (the vitest `browser` project): index labels drawn over listed elements for a screenshot,
// found through the registry by snapshot id, and their removal.
import { afterEach, describe, expect, it } from 'vitest';
import { beginSnapshot, elementIdOf } from '../registry';
import { drawHighlights, removeHighlights } from './highlight';

const layerId = '__plannav-highlights';

/** Puts `html` in the document and gives each element with an id a snapshot id, as a snapshot would. */
function listed(html: string): Record<string, string> {
  document.body.innerHTML = html;
  beginSnapshot();
  const ids: Record<string, string> = {};
  for (const element of document.body.querySelectorAll('[id]')) ids[element.id] = elementIdOf(element);
  return ids;
}

const layer = (): HTMLElement | null => document.getElementById(layerId);
const outlines = (): HTMLElement[] => [...(layer()?.children ?? [])] as HTMLElement[];

afterEach(() => {
  removeHighlights();
  document.body.innerHTML = '';
});

describe('drawHighlights', () => {
  it('draws one outline with its index over each element, on a fixed layer clicks pass through', () => {
    const ids = listed(
      '<button id="save" style="position: fixed; left: 10px; top: 20px; width: 100px; height: 40px;">Save</button>' +
        '<a id="help" href="#h" style="position: fixed; left: 150px; top: 20px; width: 60px; height: 40px; display: block;">Help</a>',
    );
    expect(
      drawHighlights({
        targets: [
          { elementId: ids.save!, index: 0 },
          { elementId: ids.help!, index: 7 },
        ],
      }),
    ).toBe(2);
    const style = window.getComputedStyle(layer()!);
    expect([style.position, style.pointerEvents, style.zIndex]).toEqual(['fixed', 'none', '2147483647']);
    expect(outlines().map((outline) => outline.textContent)).toEqual(['0', '7']);
    expect(outlines().map((outline) => outline.getBoundingClientRect().toJSON())).toMatchObject([
      { left: 10, top: 20, width: 100, height: 40 },
      { left: 150, top: 20, width: 60, height: 40 },
    ]);
    // The layer does not take the clicks meant for the page.
    expect(document.elementFromPoint(50, 40)?.id).toBe('save');
  });

  it('skips elements that are gone, not rendered, or outside the viewport', () => {
    const ids = listed(
      `<button id="shown">Shown</button><button id="removed">Removed</button><button id="none" style="display: none;">None</button>` +
        `<button id="below" style="position: absolute; top: ${window.innerHeight + 50}px;">Below</button>`,
    );
    document.getElementById('removed')!.remove();
    const targets = ['shown', 'removed', 'none', 'below'].map((id, index) => ({ elementId: ids[id]!, index }));
    expect(drawHighlights({ targets: [...targets, { elementId: 'zzzzzz-1', index: 9 }] })).toBe(1);
    expect(outlines().map((outline) => outline.textContent)).toEqual(['0']);
  });

  it('colours outlines by index, and puts the label above an element too short to hold it', () => {
    const ids = listed(
      '<a id="short" href="#s" style="display: block; width: 80px; height: 12px;"></a><a id="tall" href="#t" style="display: block; width: 80px; height: 40px;"></a>',
    );
    drawHighlights({
      targets: [
        { elementId: ids.short!, index: 1 },
        { elementId: ids.tall!, index: 9 },
      ],
    });
    const [short, tall] = outlines();
    expect(short!.style.borderColor).toBe(tall!.style.borderColor); // eight colours: index 9 takes the colour of 1
    expect((short!.firstElementChild as HTMLElement).style.top).toBe('-16px');
    expect((tall!.firstElementChild as HTMLElement).style.top).toBe('0px');
    drawHighlights({ targets: [{ elementId: ids.short!, index: 2 }] });
    expect(outlines()[0]!.style.borderColor).not.toBe(short!.style.borderColor);
  });

  it('replaces the layer drawn before, so only one is ever on the page', () => {
    const ids = listed('<button id="one">One</button>');
    drawHighlights({ targets: [{ elementId: ids.one!, index: 0 }] });
    drawHighlights({ targets: [{ elementId: ids.one!, index: 3 }] });
    expect(document.querySelectorAll(`[id="${layerId}"]`)).toHaveLength(1);
    expect(outlines().map((outline) => outline.textContent)).toEqual(['3']);
  });
});

describe('removeHighlights', () => {
  it('removes the layer and says whether there was one', () => {
    const ids = listed('<button id="one">One</button>');
    drawHighlights({ targets: [{ elementId: ids.one!, index: 0 }] });
    expect(removeHighlights()).toBe(true);
    expect(layer()).toBeNull();
    expect(removeHighlights()).toBe(false);
  });
});
