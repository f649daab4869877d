// Runs in headless Chromium (the vitest `browser` project): the snapshot as the model reads it, taken of real
// markup with real CSS layout. The recorder is installed first, as drivers install it before the page's scripts.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FrameSnapshot, SnapshotElement, SnapshotScriptOptions } from '../types';
import { defaultIncludeAttributes } from '../page-state-reader';
import { installRecorder } from './recorder';
import { resolveElement } from './registry';
import { listedElements, takeSnapshot } from './snapshot';

const options = (overrides: Partial<SnapshotScriptOptions> = {}): SnapshotScriptOptions => ({
  viewportExpansion: 0,
  includeAttributes: defaultIncludeAttributes,
  maxTextLength: 100,
  ...overrides,
});

/** Puts `html` in the document, runs `setup` (listeners, shadow roots), and takes a snapshot. */
function snapshotOf(html: string, setup?: () => void, overrides: Partial<SnapshotScriptOptions> = {}): FrameSnapshot {
  document.body.innerHTML = html;
  setup?.();
  return takeSnapshot(options(overrides));
}

/** The snapshot in a compact form: `[tag] text` for an element, the text for a text item, two spaces per depth. */
const view = (snapshot: FrameSnapshot): string[] =>
  snapshot.items.map((item) => '  '.repeat(item.depth) + (item.kind === 'element' ? `[${item.tagName}] ${item.text}`.trimEnd() : item.text));

const elementsOf = (snapshot: FrameSnapshot): SnapshotElement[] => snapshot.items.filter((item): item is SnapshotElement => item.kind === 'element');

/** The listed element whose text is `text`. */
function elementWith(snapshot: FrameSnapshot, text: string): SnapshotElement {
  const found = elementsOf(snapshot).find((item) => item.text === text);
  if (!found) throw new Error(`no element with text ${JSON.stringify(text)} in ${JSON.stringify(view(snapshot))}`);
  return found;
}

const onClick =
  (selector: string): (() => void) =>
  () => {
    for (const element of document.querySelectorAll(selector)) element.addEventListener('click', () => {});
  };

beforeAll(() => {
  installRecorder();
});

afterEach(() => {
  for (const dialog of document.querySelectorAll('dialog')) dialog.close();
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('what the snapshot lists as visible', () => {
  it('lists visible controls and leaves out hidden ones and their text: display none, visibility hidden, opacity 0, the 1-pixel clip pattern', () => {
    const snapshot = snapshotOf(
      '<button>Shown</button>' +
        '<div style="display: none;"><button>None</button>Gone text</div>' +
        '<div style="visibility: hidden;"><button>Invisible</button>Unseen text</div>' +
        '<div style="opacity: 0;"><button>Transparent</button>Clear text</div>' +
        '<div style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);"><a href="#main">Skip to content</a></div>',
    );
    expect(view(snapshot)).toEqual(['[button] Shown']);
  });

  it('lets a child that says visibility: visible show inside a hidden parent', () => {
    const snapshot = snapshotOf('<div style="visibility: hidden;">Hidden words <button style="visibility: visible;">Revealed</button></div>');
    expect(view(snapshot)).toEqual(['[button] Revealed']);
  });

  it('shows a closed <details> as its summary alone, and its content once opened', () => {
    const html = '<details><summary>Shipping</summary><p>Ships in two days.</p><button>Track</button></details>';
    const closed = snapshotOf(html);
    expect(view(closed)).toEqual(['[summary] Shipping']);
    expect(elementWith(closed, 'Shipping').attributes.expanded).toBe('false');
    (document.querySelector('details') as HTMLDetailsElement).open = true;
    const open = takeSnapshot(options());
    expect(view(open)).toEqual(['[summary] Shipping', 'Ships in two days.', '[button] Track']);
    expect(elementWith(open, 'Shipping').attributes.expanded).toBe('true');
  });

  it('leaves out what lies outside the viewport, lists more with viewportExpansion, and all of the page with -1', () => {
    const height = window.innerHeight;
    const html =
      `<button>Top</button><div style="position: absolute; top: ${height + 100}px;"><button>Near</button></div>` +
      `<div style="position: absolute; top: ${height * 3}px;"><button>Far</button></div>`;
    expect(view(snapshotOf(html))).toEqual(['[button] Top']);
    expect(view(snapshotOf(html, undefined, { viewportExpansion: 300 }))).toEqual(['[button] Top', '[button] Near']);
    expect(view(snapshotOf(html, undefined, { viewportExpansion: -1 }))).toEqual(['[button] Top', '[button] Near', '[button] Far']);
  });

  it('reports the page around the viewport: url, title, pixels above and below, viewport size', () => {
    const height = window.innerHeight;
    document.body.innerHTML = `<div style="height: ${height * 3}px;"></div>`;
    window.scrollTo(0, 200);
    const snapshot = takeSnapshot(options());
    expect(snapshot.url).toBe(location.href);
    expect(snapshot.title).toBe(document.title);
    expect(snapshot.pixelsAbove).toBe(200);
    expect(snapshot.pixelsBelow).toBe(height * 3 - 200 - height);
    expect(snapshot.viewport).toEqual({ width: window.innerWidth, height });
  });

  it('never lists what is inside an iframe, nor the iframe itself', () => {
    const snapshot = snapshotOf('<button>Outside</button><iframe srcdoc="<button>Inside</button>" style="width: 200px; height: 100px;"></iframe>');
    expect(view(snapshot)).toEqual(['[button] Outside']);
  });
});

describe('what covers an element', () => {
  it('takes the index of a control under a fixed overlay and keeps its text as plain text; the overlay’s controls are listed', () => {
    const snapshot = snapshotOf(
      '<button>Under</button><div style="position: fixed; inset: 0; background: white; z-index: 10;"><p>We use cookies.</p><button>Accept</button></div>',
    );
    expect(view(snapshot)).toEqual(['Under', 'We use cookies.', '[button] Accept']);
  });

  it('keeps a control beside a small popover listed', () => {
    const snapshot = snapshotOf(
      '<button style="display: block; width: 100px; height: 30px;">Left</button>' +
        '<div style="position: absolute; left: 250px; top: 0; width: 100px; height: 30px; z-index: 5;"><a href="#p">Popover</a></div>',
    );
    expect(view(snapshot)).toEqual(['[button] Left', '[a] Popover']);
  });

  it('lists only the controls of an open modal dialog, and the page again once it closes', () => {
    snapshotOf('<button>Page button</button><dialog><p>Delete the file?</p><button>Confirm</button></dialog>');
    const dialog = document.querySelector('dialog')!;
    dialog.showModal();
    const open = takeSnapshot(options());
    expect(view(open)).toEqual(['Page button', 'Delete the file?', '[button] Confirm']);
    dialog.close();
    expect(view(takeSnapshot(options()))).toEqual(['[button] Page button']);
  });
});

describe('what cannot be acted on', () => {
  it('leaves out disabled controls: disabled, aria-disabled, inside a disabled fieldset, inside an inert subtree', () => {
    const snapshot = snapshotOf(
      '<button disabled>Disabled</button><div role="button" aria-disabled="true">Aria disabled</div>' +
        '<fieldset disabled><input placeholder="In fieldset"><a href="#f">Fieldset link</a></fieldset>' +
        '<div inert><button>Inert</button></div><button>Enabled</button>',
    );
    expect(elementsOf(snapshot).map((item) => item.text)).toEqual(['Enabled']);
  });

  it('never lists hidden inputs', () => {
    const snapshot = snapshotOf('<form><input type="hidden" name="token" value="secret"><button>Send</button></form>');
    expect(view(snapshot)).toEqual(['[button] Send']);
  });
});

describe('element ids', () => {
  it('keeps the ids of the same elements across two snapshots and gives a new element a new id', () => {
    const first = snapshotOf('<button>One</button><button>Two</button>');
    const second = takeSnapshot(options());
    expect(elementsOf(second).map((item) => item.elementId)).toEqual(elementsOf(first).map((item) => item.elementId));
    document.body.insertAdjacentHTML('afterbegin', '<button>New</button>');
    const third = takeSnapshot(options());
    const known = new Set(elementsOf(first).map((item) => item.elementId));
    expect(known.has(elementWith(third, 'New').elementId)).toBe(false);
    expect(elementWith(third, 'One').elementId).toBe(elementWith(first, 'One').elementId);
  });

  it('resolves every listed id back to its element', () => {
    const snapshot = snapshotOf('<a href="#a">Link</a><input placeholder="Field">');
    for (const item of elementsOf(snapshot)) expect(resolveElement({ elementId: item.elementId })).toBe(document.querySelector(item.tagName));
  });

  it('gives a selector that names the element when it has an id, a unique name or a test id', () => {
    const snapshot = snapshotOf(
      '<button id="save">Save</button><input name="q" placeholder="Search"><button data-testid="close">Close</button><button>Plain</button>',
    );
    expect(elementsOf(snapshot).map((item) => item.selector)).toEqual(['button[id="save"]', 'input[name="q"]', 'button[data-testid="close"]', undefined]);
  });
});

describe('listeners, cursors and delegation', () => {
  it('never lists the document roots, whatever listens on them', () => {
    const tracking = (): void => {};
    const snapshot = snapshotOf('<p>Plain page</p><button>Only</button>', () => {
      document.body.addEventListener('click', tracking);
      document.documentElement.setAttribute('onclick', 'void 0');
      document.body.style.cursor = 'pointer';
    });
    // The body and the html element outlive the test: take back what it put on them.
    document.body.removeEventListener('click', tracking);
    document.documentElement.removeAttribute('onclick');
    document.body.style.cursor = '';
    expect(view(snapshot)).toEqual(['Plain page', '[button] Only']);
  });

  it('does not list a full-viewport wrapper that listens for clicks, while the buttons inside it are listed', () => {
    const snapshot = snapshotOf(
      '<div id="app" style="position: fixed; inset: 0;"><h1>Shop</h1><button>First</button><button>Second</button></div>',
      onClick('#app'),
    );
    expect(view(snapshot)).toEqual(['Shop', '[button] First', '[button] Second']);
  });

  it('lists a div with a listener, and drops it once the listener is removed', () => {
    const listener = (): void => {};
    const html = '<div id="card" style="width: 200px;">Open the card</div>';
    const listening = snapshotOf(html, () => document.getElementById('card')!.addEventListener('click', listener));
    expect(view(listening)).toEqual(['[div] Open the card']);
    document.getElementById('card')!.removeEventListener('click', listener);
    expect(view(takeSnapshot(options()))).toEqual(['Open the card']);
  });

  it('lists each item of a list whose items get a pointer cursor from CSS, inside a list that delegates clicks', () => {
    const snapshot = snapshotOf(
      '<style>.menu li { cursor: pointer; }</style><ul class="menu" id="menu" style="width: 200px;"><li>Inbox</li><li>Sent</li><li>Drafts</li></ul>',
      onClick('#menu'),
    );
    expect(view(snapshot)).toEqual(['[li] Inbox', '[li] Sent', '[li] Drafts']);
  });

  it('lists every item of a roving-tabindex menu, those with tabindex="-1" too', () => {
    const snapshot = snapshotOf('<div role="menu"><div role="none" tabindex="0">Cut</div><div tabindex="-1">Copy</div><div tabindex="-1">Paste</div></div>');
    expect(elementsOf(snapshot).map((item) => item.text)).toEqual(['Cut', 'Copy', 'Paste']);
  });

  it('lists a table cell that listens for clicks around its link once, as the link', () => {
    const snapshot = snapshotOf('<table><tr><td class="day" style="width: 40px;"><a href="#d14">14</a></td></tr></table>', onClick('td'));
    expect(view(snapshot)).toEqual(['[a] 14']);
    expect(elementsOf(snapshot)[0]!.attributes.href).toBe('#d14');
  });

  it('nests the distinct controls of a clickable bar under it', () => {
    const snapshot = snapshotOf('<div id="bar" style="width: 300px;">Order 42 <button>Cancel</button></div>', onClick('#bar'));
    expect(view(snapshot)).toEqual(['[div] Order 42', '  [button] Cancel']);
  });

  it('does not split a clickable card at a child that only inherits its pointer cursor', () => {
    const snapshot = snapshotOf('<div style="cursor: pointer; width: 300px;"><span>Title</span> <span>Price</span></div>');
    expect(view(snapshot)).toEqual(['[div] Title Price']);
  });
});

describe('text', () => {
  it('puts the block children of a listed element, and the parts around a <br>, on lines of their own', () => {
    const snapshot = snapshotOf(
      '<div style="cursor: pointer; width: 300px;"><div>From: Ana</div><div>Subject: Lunch<br>Tomorrow?</div><span>inline</span> <b>run</b></div>',
    );
    expect(elementsOf(snapshot)[0]!.text).toBe('From: Ana\nSubject: Lunch\nTomorrow?\ninline run');
  });

  it('writes page text between the controls in document order, one block per line', () => {
    const snapshot = snapshotOf('<h1>Welcome</h1><p>Read <em>this</em> first.</p><button>Start</button><p>After</p>');
    expect(view(snapshot)).toEqual(['Welcome', 'Read this first.', '[button] Start', 'After']);
  });

  it('cuts a line longer than the limit with … and still shows the lines after it in full', () => {
    const snapshot = snapshotOf(`<div style="cursor: pointer;"><p>${'long '.repeat(20)}</p><p>Short line</p></div>`, undefined, { maxTextLength: 20 });
    expect(elementsOf(snapshot)[0]!.text).toBe(`${'long '.repeat(4)}…\nShort line`);
  });

  it('leaves out text indented away, of zero font size, off the left edge, or clipped by its parent', () => {
    const snapshot = snapshotOf(
      '<h1 style="text-indent: -9999px;">Logo text</h1><p style="font-size: 0;">Zero font</p>' +
        '<p style="position: absolute; left: -2000px; top: 0;">Off page</p>' +
        '<div style="height: 20px; overflow: hidden;"><div style="height: 20px;">Seen</div><div style="height: 20px;">Clipped</div></div>',
    );
    expect(view(snapshot)).toEqual(['Seen']);
  });
});

describe('names', () => {
  it('gives a control without text of its own its accessible name: label for, wrapping label, aria-labelledby', () => {
    const snapshot = snapshotOf(
      '<label for="email">E-mail</label><input id="email"><label>Name <input></label>' + '<span id="hint">Postcode</span><input aria-labelledby="hint">',
    );
    expect(elementsOf(snapshot).map((item) => item.text)).toEqual(['E-mail', 'Name', 'Postcode']);
    // The label's words stand on the control's line, not again as page text beside it.
    expect(snapshot.items.filter((item) => item.kind === 'text')).toEqual([]);
  });

  it('never uses hidden text as a name: a button whose only text is indented away or of zero size has none', () => {
    const snapshot = snapshotOf(
      '<button style="text-indent: -9999px;">Indented secret</button><button><span style="font-size: 0;">Tiny secret</span></button>',
    );
    expect(elementsOf(snapshot).map((item) => item.text)).toEqual(['', '']);
    expect(JSON.stringify(snapshot)).not.toContain('secret');
  });

  it('makes a field’s name its text, placeholder as the last resort, and drops an attribute that says the same', () => {
    const snapshot = snapshotOf(
      '<button title="Save">Save</button><input placeholder="Search" aria-label="Search"><input placeholder="Your city" title="City">',
    );
    expect(elementsOf(snapshot).map((item) => [item.text, item.attributes])).toEqual([
      ['Save', {}],
      ['Search', {}],
      ['City', { placeholder: 'Your city' }],
    ]);
  });

  it('gives an icon-only button a hint from its icon', () => {
    const snapshot = snapshotOf('<button class="btn"><i class="fa fa-trash"></i></button><button aria-label="Close">×</button>');
    expect(elementsOf(snapshot).map((item) => [item.text, item.attributes])).toEqual([
      ['', { hint: 'trash' }],
      ['×', { 'aria-label': 'Close' }],
    ]);
  });
});

describe('values and state', () => {
  it('never shows a password field’s value or title, and names it by its visible label', () => {
    const snapshot = snapshotOf(
      '<label for="pw">Password</label><input id="pw" type="password" title="hunter2" aria-valuetext="hunter2" data-value="hunter2">',
      () => {
        (document.getElementById('pw') as HTMLInputElement).value = 'hunter2';
      },
    );
    expect(view(snapshot)).toEqual(['[input] Password']);
    expect(JSON.stringify(snapshot)).not.toContain('hunter2');
  });

  it('shows a select’s options and the selected one, named by its label', () => {
    const snapshot = snapshotOf(
      '<label for="size">Size</label><select id="size"><option>Small</option><option selected>Medium</option><option>Large</option></select>',
    );
    const select = elementsOf(snapshot)[0]!;
    expect(select.tagName).toBe('select');
    expect(select.text).toBe('Size');
    expect(select.attributes).toEqual({ selected: 'Medium', options: 'Small|Medium|Large' });
  });

  it('lists the label of a styled checkbox whose input is transparent, with the checkbox’s type and state', () => {
    // The input sits clear of the walk's hit-test grid (x 8 and 48, y 8, the rest scale with the viewport): see
    // defects.browser.test.ts for the same input listed a second time when a grid point lands on it.
    const snapshot = snapshotOf(
      '<label><input type="checkbox" checked style="opacity: 0; position: absolute; left: 20px; top: 20px; width: 10px; height: 10px; margin: 0;">' +
        '<span style="display: inline-block; padding: 20px 40px;">Keep me signed in</span></label>',
    );
    expect(view(snapshot)).toEqual(['[label] Keep me signed in']);
    expect(elementsOf(snapshot)[0]!.attributes).toEqual({ type: 'checkbox', checked: '' });
  });

  it('shows typed values and checked state as they are now', () => {
    const snapshot = snapshotOf('<input placeholder="City"><input type="checkbox" aria-label="Gift">', () => {
      (document.querySelector('input') as HTMLInputElement).value = 'Lisbon';
      (document.querySelector('[type=checkbox]') as HTMLInputElement).checked = true;
    });
    expect(elementsOf(snapshot).map((item) => [item.text, item.attributes])).toEqual([
      ['City', { value: 'Lisbon' }],
      ['Gift', { type: 'checkbox', checked: '' }],
    ]);
  });
});

describe('scroll boxes', () => {
  const box =
    '<div id="box" style="height: 100px; overflow-y: auto;">' +
    Array.from({ length: 10 }, (_, index) => `<button style="display: block; height: 50px;">Item ${index}</button>`).join('') +
    '</div>';

  it('lists a scroll box with the pixels it hides above and below, and only the content it shows', () => {
    const snapshot = snapshotOf(box);
    expect(view(snapshot)).toEqual(['[div]', '  [button] Item 0', '  [button] Item 1']);
    expect(elementsOf(snapshot)[0]!.scroll).toEqual({ above: 0, below: 400 });
  });

  it('follows the box as it scrolls', () => {
    snapshotOf(box);
    document.getElementById('box')!.scrollTop = 200;
    const snapshot = takeSnapshot(options());
    expect(view(snapshot)).toEqual(['[div]', '  [button] Item 4', '  [button] Item 5']);
    expect(elementsOf(snapshot)[0]!.scroll).toEqual({ above: 200, below: 200 });
  });

  it('does not mark a box with overflow: auto whose content fits', () => {
    const snapshot = snapshotOf('<div style="height: 100px; overflow: auto;"><button>Fits</button></div>');
    expect(view(snapshot)).toEqual(['[button] Fits']);
  });
});

describe('shadow roots', () => {
  it('walks an open shadow root in rendered order, slotted content where its slot is', () => {
    const snapshot = snapshotOf('<product-card><span slot="title">Slotted title</span><p>Not slotted</p></product-card>', () => {
      const root = document.querySelector('product-card')!.attachShadow({ mode: 'open' });
      root.innerHTML = '<h2><slot name="title"></slot></h2><button>Buy</button>';
    });
    expect(view(snapshot)).toEqual(['Slotted title', '[button] Buy']);
  });

  it('walks a closed shadow root attached after the recorder was installed', () => {
    const snapshot = snapshotOf('<x-login></x-login>', () => {
      const root = document.querySelector('x-login')!.attachShadow({ mode: 'closed' });
      root.innerHTML = '<input placeholder="User"><button>Log in</button>';
    });
    expect(view(snapshot)).toEqual(['[input] User', '[button] Log in']);
  });
});

describe('listedElements', () => {
  it('gives the elements a snapshot would list, without giving them ids', () => {
    document.body.innerHTML = '<button>One</button><div style="display: none;"><button>Hidden</button></div><a href="#x">Two</a>';
    const listed = listedElements(options());
    expect(listed.map((element) => element.textContent)).toEqual(['One', 'Two']);
    const snapshot = takeSnapshot(options());
    expect(elementsOf(snapshot).map((item) => resolveElement({ elementId: item.elementId }))).toEqual(listed);
  });
});

describe('text hidden from people never reaches the model', () => {
  it('leaves out text scaled to nothing, filtered to opacity 0 or drawn in a transparent colour', () => {
    const snapshot = snapshotOf(`
      <p>Shown words</p>
      <div style="transform: scale(0)">SECRET-SCALE <button>Hidden scaled button</button></div>
      <div style="filter: opacity(0)">SECRET-FILTER</div>
      <p style="color: transparent">SECRET-TRANSPARENT</p>
      <h1 style="color: transparent; background: linear-gradient(red, blue); -webkit-background-clip: text; background-clip: text">Gradient heading</h1>`);
    const text = view(snapshot).join('\n');
    expect(text).toContain('Shown words');
    expect(text).toContain('Gradient heading');
    for (const secret of ['SECRET-SCALE', 'Hidden scaled button', 'SECRET-FILTER', 'SECRET-TRANSPARENT']) expect(text).not.toContain(secret);
  });
});

describe('issue 21: what shows is in the view, as it reads', () => {
  // The box lies between x = 8 and x = 48, where the walk's hit-test grid has no point, so only
  // the walk itself can find the menu.
  const box = (rowStyle: string): string =>
    '<div id="box" style="position: absolute; left: 10px; top: 10px; height: 100px; width: 36px; overflow: auto; font-size: 8px;">' +
    `<div style="${rowStyle} height: 30px;">Row one<ul style="position: absolute; top: 30px; left: 0; margin: 0; padding: 0; list-style: none;">` +
    '<li><button style="width: 30px; padding: 0; font-size: 8px;">Reorder</button></li><li><button style="width: 30px; padding: 0; font-size: 8px;">Refund</button></li></ul></div>' +
    '<div style="height: 30px;">Row two</div><div style="height: 30px;">Row three</div><div style="height: 30px;">Row four</div><div style="height: 30px;">Row five</div></div>';
  const scrolled = (): void => {
    document.getElementById('box')!.scrollTop = 35;
  };

  it('keeps a positioned menu hanging from a row scrolled out of its scroll box, not the row', () => {
    const lines = view(snapshotOf(box('position: relative;'), scrolled));
    expect(lines).toEqual(expect.arrayContaining(['  [button] Reorder', '  [button] Refund']));
    expect(lines.join('\n')).not.toContain('Row one');
    expect(lines.join('\n')).toContain('Row two');
  });

  it('keeps a positioned menu placed by the scroll box itself (the row is not positioned) when the row scrolled out', () => {
    const lines = view(snapshotOf(box(''), scrolled));
    expect(lines).toEqual(expect.arrayContaining(['  [button] Reorder', '  [button] Refund']));
    expect(lines.join('\n')).not.toContain('Row one');
  });

  it('drops the whole row when nothing of it shows', () => {
    const lines = view(snapshotOf(box('position: relative; overflow: hidden;'), scrolled));
    expect(lines.join('\n')).not.toMatch(/Row one|Reorder|Refund/);
  });

  it('gives the alt of an image that is not a control as text; an empty alt, a hidden or presentational image give none', () => {
    const image = (attributes: string): string => `<img ${attributes} width="16" height="16" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`;
    const snapshot = snapshotOf(
      `<ul><li>Garlic bread ${image('alt="vegan"')}</li><li>Soup ${image('alt=""')}</li><li>Stew ${image('alt="spicy" aria-hidden="true"')}${image('alt="hot" role="presentation"')}</li></ul>` +
        `<a href="/home">${image('alt="Home"')}</a>`,
    );
    expect(view(snapshot)).toEqual(['Garlic bread vegan', 'Soup', 'Stew', '[a] Home']);
  });

  it('joins inline text as the page writes it and separates cells, inline blocks and flex items', () => {
    const snapshot = snapshotOf(
      '<p>Lorem <b>Grav</b>ida. dolor <i>a</i><i>met</i>, sit.</p><p><span onclick="" style="cursor: pointer"> Gravida. </span></p>' +
        '<table><tr><td>Soup</td><td>4.50</td></tr></table><p><span style="display: inline-block">Hot</span><span style="display: inline-block">New</span></p>' +
        '<div style="display: flex"><span>Blue teapot</span><span>$12</span></div><div><div>Lunch</div><div>Dinner</div></div>',
    );
    expect(view(snapshot)).toEqual(['Lorem Gravida. dolor amet, sit.', '[span] Gravida.', 'Soup 4.50', 'Hot New', 'Blue teapot $12', 'Lunch', 'Dinner']);
  });
});
