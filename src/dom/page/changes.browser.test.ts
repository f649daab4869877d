// Runs in headless Chromium (the vitest `browser` project): the change probe between the actions of a step counts
// only what a snapshot would list and the last one did not. The probe keeps per-document state, so tests run in order.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultIncludeAttributes } from '../page-state-reader';
import type { SnapshotScriptOptions } from '../types';
import { probeChanges } from './changes';
import { takeSnapshot } from './snapshot';

const options: SnapshotScriptOptions = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };

/** Puts `html` in the document and takes the snapshot the model sees. */
function seen(html: string): void {
  document.body.innerHTML = html;
  takeSnapshot(options);
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('probeChanges', () => {
  // First in the file: no snapshot ran in this document yet.
  it('reports a new document when no snapshot ran in it', () => {
    document.body.innerHTML = '<button>Fresh</button>';
    expect(probeChanges()).toEqual({ newDocument: true, newElements: 0 });
  });

  it('finds nothing new on a page that did not change, nor after typing into a field', () => {
    seen('<input placeholder="Search"><button>Go</button>');
    expect(probeChanges()).toEqual({ newDocument: false, newElements: 0 });
    (document.querySelector('input') as HTMLInputElement).value = 'shoes';
    expect(probeChanges().newElements).toBe(0);
  });

  it('counts a button that became visible', () => {
    seen('<button>Menu</button><div id="menu" style="display: none;"><button>Profile</button><button>Log out</button></div>');
    document.getElementById('menu')!.style.display = 'block';
    expect(probeChanges()).toEqual({ newDocument: false, newElements: 2 });
  });

  it('counts a created element and one added in a shadow root', () => {
    seen('<div id="host"></div>');
    document.body.insertAdjacentHTML('beforeend', '<a href="#new">New link</a>');
    const root = document.getElementById('host')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<button>In shadow</button>';
    expect(probeChanges().newElements).toBe(2);
  });

  it('does not count content added inside a scroll box below what it shows', () => {
    const item = (text: string): string => `<button style="display: block; height: 80px;">${text}</button>`;
    seen(`<div id="box" style="height: 100px; overflow-y: auto;">${item('Shown')}${item('Half shown')}</div>`);
    document.getElementById('box')!.insertAdjacentHTML('beforeend', item('Clipped'));
    expect(probeChanges().newElements).toBe(0);
    document.getElementById('box')!.insertAdjacentHTML('afterbegin', item('Added at the top'));
    expect(probeChanges().newElements).toBe(1);
  });

  it('does not count a button added under a covering overlay, and counts one added on the overlay', () => {
    seen('<button>Page</button><div id="overlay" style="position: fixed; inset: 0; z-index: 5; background: white;"><button>Close</button></div>');
    document.body.insertAdjacentHTML('afterbegin', '<button>Behind</button>');
    expect(probeChanges().newElements).toBe(0);
    document.getElementById('overlay')!.insertAdjacentHTML('beforeend', '<button>On top</button>');
    expect(probeChanges().newElements).toBe(1);
  });

  it('does not count what a snapshot would not list: disabled controls, slivers, elements below the viewport, removed ones', () => {
    seen('<button id="old">Old</button>');
    document.getElementById('old')!.remove();
    document.body.insertAdjacentHTML(
      'beforeend',
      `<button disabled>Disabled</button><a href="#t" style="display: inline-block; width: 1px; height: 1px;"></a>` +
        `<button style="position: absolute; top: ${window.innerHeight + 200}px;">Below</button>`,
    );
    expect(probeChanges().newElements).toBe(0);
  });

  it('applies the options of the last snapshot: with an expansion, a button below the viewport counts', () => {
    document.body.innerHTML = '';
    takeSnapshot({ ...options, viewportExpansion: 500 });
    document.body.insertAdjacentHTML('beforeend', `<button style="position: absolute; top: ${window.innerHeight + 200}px;">Below</button>`);
    expect(probeChanges().newElements).toBe(1);
  });

  it('stops counting at 50', () => {
    seen('');
    document.body.innerHTML = Array.from({ length: 70 }, (_, index) => `<button style="width: 40px; height: 10px;">${index}</button>`).join('');
    expect(probeChanges().newElements).toBe(50);
  });
});
