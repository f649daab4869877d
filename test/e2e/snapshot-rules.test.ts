// Every rule of the page snapshot, checked in real headless Chromium against fixture pages served
// on loopback. One browser for the whole file; each test loads its own page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, elementLines, indexWith, lineWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowser();
});

afterAll(async () => {
  await fixture?.close();
});

describe('visibility', () => {
  it('indexes visible elements and never hidden ones, nor their text', async () => {
    const { elementsText: text } = await capture(fixture, 'visibility.html');
    expect(lineWith(text, 'Shown button')).toBeDefined();
    expect(lineWith(text, 'Visible after hidden ones')).toBeDefined();
    for (const hidden of [
      'Display none',
      'Visibility hidden button',
      'Opacity zero',
      'Zero size',
      'Far left',
      'Screen reader skip',
      'Collapsed button',
      'Details button',
      'Hidden attribute',
    ]) {
      expect(text, hidden).not.toContain(hidden);
    }
    for (const secret of ['Secret display none', 'Secret visibility hidden', 'Secret collapsed', 'Secret details', 'Secret hidden attribute']) {
      expect(text, secret).not.toContain(secret);
    }
    expect(text).toContain('Visible child of hidden parent');
    expect(text).toContain('Plain visible paragraph text.');
  });

  it('shows a closed <details> as a collapsed summary, and its content once opened', async () => {
    const state = await capture(fixture, 'visibility.html');
    expect(lineWith(state.elementsText, 'More details')).toContain('expanded="false"');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'More details'))!);
    const opened = await state.reader.capture({ screenshot: false });
    expect(lineWith(opened.elementsText, 'More details')).toContain('expanded="true"');
    expect(opened.elementsText).toContain('Secret details text');
    expect(lineWith(opened.elementsText, 'Details button')).toMatch(/^\*\[\d+\]/);
  });

  it('does not index disabled controls (aria-disabled too)', async () => {
    const { elementsText: text } = await capture(fixture, 'visibility.html');
    expect(lineWith(text, 'Aria disabled button')).toBeUndefined();
    expect(text).toContain('Aria disabled button');
  });
});

describe('fixed bars', () => {
  it('keeps a fixed bottom bar indexed after its short parent scrolled far out of view', async () => {
    const state = await capture(fixture, 'fixed-in-header.html');
    expect(lineWith(state.elementsText, 'Home')).toBeDefined();
    await fixture.driver.scroll({ deltaY: 2000 });
    const scrolled = await state.reader.capture({ screenshot: false });
    expect(lineWith(scrolled.elementsText, 'Home')).toBeUndefined();
    expect(lineWith(scrolled.elementsText, 'Chat with us')).toBeDefined();
    expect(lineWith(scrolled.elementsText, 'Accept cookies')).toBeDefined();
  });
});

describe('hidden text', () => {
  for (const [mode, viewportExpansion] of [
    ['the viewport', 0],
    ['whole-page mode', -1],
  ] as const) {
    it(`leaves out text that is off the page's left or top edge, indented away, clipped away or of zero size, in ${mode}`, async () => {
      const { elementsText: text } = await capture(fixture, 'hidden-text.html', { viewportExpansion });
      for (const shown of ['Plain visible text', 'Visible inside a zero font row', 'Visible indented paragraph']) expect(text, shown).toContain(shown);
      expect(text).not.toContain('Secret');
      expect(text).not.toContain('Far left button');
      expect(text).not.toContain('Clip path button');
      expect(lineWith(text, 'href="/home"')).toBeDefined();
    });
  }
});

describe('top-most elements', () => {
  it('leaves elements under an overlay unindexed and indexes the modal; they come back when it closes', async () => {
    const state = await capture(fixture, 'overlay.html');
    expect(lineWith(state.elementsText, 'Button under the overlay')).toBeUndefined();
    expect(lineWith(state.elementsText, 'Link under the overlay')).toBeUndefined();
    expect(lineWith(state.elementsText, 'Home link in header')).toBeUndefined();
    const accept = indexWith(state.elementsText, 'Accept cookies');
    await fixture.driver.click(state.elements.get(accept)!);
    const after = await state.reader.capture({ screenshot: false });
    expect(lineWith(after.elementsText, 'Button under the overlay')).toMatch(/^\*\[\d+\]<button/);
    expect(lineWith(after.elementsText, 'Link under the overlay')).toMatch(/^\*\[\d+\]<a/);
    expect(lineWith(after.elementsText, 'Home link in header')).toBeDefined();
    expect(after.elementsText).not.toContain('Accept cookies');
  });
});

describe('top-most elements under popovers and modal dialogs', () => {
  it('leaves links under a stacked popover unindexed and keeps the ones beside it', async () => {
    const { elementsText: text } = await capture(fixture, 'popover.html');
    expect(lineWith(text, 'Link under popover one')).toBeUndefined();
    expect(lineWith(text, 'Link under popover two')).toBeUndefined();
    expect(lineWith(text, 'Link below the popover')).toBeDefined();
    expect(lineWith(text, 'Popover button')).toBeDefined();
  });

  it('indexes only the modal dialog while it is open', async () => {
    const state = await capture(fixture, 'popover.html');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Open dialog'))!);
    const open = await state.reader.capture({ screenshot: false });
    expect(lineWith(open.elementsText, 'Close dialog')).toBeDefined();
    expect(lineWith(open.elementsText, 'Open dialog')).toBeUndefined();
    expect(lineWith(open.elementsText, 'Link below the popover')).toBeUndefined();
    await fixture.driver.click(open.elements.get(indexWith(open.elementsText, 'Close dialog'))!);
    const closed = await state.reader.capture({ screenshot: false });
    expect(indexWith(closed.elementsText, 'Open dialog')).toBe(indexWith(state.elementsText, 'Open dialog'));
    expect(closed.elementsText).not.toContain('Dialog text');
  });
});

describe('interactive elements', () => {
  it('indexes native controls, ARIA roles, tabindex, contenteditable, onclick, recorded listeners and own pointer cursors', async () => {
    const { elementsText: text } = await capture(fixture, 'interactive.html');
    // A link of the same site whose text names it shows no href (links.ts).
    expect(lineWith(text, 'Native link')).toMatch(/^\t*\[\d+\]<a>Native link \/>$/);
    for (const label of [
      'Native button',
      'Role button div',
      'Focusable div',
      'Editable area',
      'Inline onclick div',
      'Listener div',
      'Library span',
      'Pointer span',
      'First menu item',
      'Second menu item',
    ]) {
      expect(lineWith(text, label), label).toBeDefined();
    }
    for (const label of ['Anchor without href', 'Not focusable div', 'Plain div text']) {
      expect(lineWith(text, label), label).toBeUndefined();
      expect(text, label).toContain(label);
    }
  });

  it('counts listeners added by page scripts: clicking the element runs them', async () => {
    const state = await capture(fixture, 'interactive.html');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Library span'))!);
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('library clicked');
  });

  it('gives distinct controls inside a clickable bar their own indices, nested under it', async () => {
    const state = await capture(fixture, 'interactive.html');
    const lines = elementLines(state.elementsText);
    const bar = lines.findIndex((line) => line.includes('Message from Ada'));
    expect(bar).toBeGreaterThanOrEqual(0);
    expect(lines[bar + 1]).toMatch(/^\t\[\d+\]<span>Reply \/>$/);
    expect(lines[bar + 2]).toMatch(/^\t\[\d+\]<span>Forward \/>$/);
    expect(lines[bar]).not.toContain('Reply');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Forward'))!);
    expect((await state.reader.capture({ screenshot: false })).elementsText).toContain('forward clicked');
  });

  it('does not split a clickable card at a child that only inherits its pointer cursor', async () => {
    const { elementsText: text } = await capture(fixture, 'interactive.html');
    expect(lineWith(text, 'Card title')).toContain('inherited pointer child');
    expect(elementLines(text).filter((line) => line.includes('inherited pointer child'))).toHaveLength(1);
  });

  it('gives icon-only controls a distinguishing label or hint', async () => {
    const { elementsText: text } = await capture(fixture, 'icons.html');
    const lines = elementLines(text);
    expect(lines).toHaveLength(7);
    // An aria-label or title is the control's accessible name, shown as its text.
    expect(lines.some((line) => /<button>Bold \/>$/.test(line))).toBe(true);
    expect(lines.some((line) => /<button>Italic \/>$/.test(line))).toBe(true);
    // An image's alt text inside a button is its accessible name, shown as its text.
    expect(lines.some((line) => />Delete \/>$/.test(line))).toBe(true);
    expect(lines.some((line) => /hint="[^"]*star/.test(line))).toBe(true);
    expect(lines.some((line) => /hint="[^"]*arrow-back/.test(line))).toBe(true);
    expect(lines.some((line) => /hint="[^"]*share/.test(line))).toBe(true);
    expect(lines.some((line) => /hint="[^"]*heart/.test(line))).toBe(true);
    expect(new Set(lines.map((line) => line.replace(/^\[\d+\]/, ''))).size).toBe(7);
  });
});

describe('forms and live state', () => {
  it('shows current values, checked and selected states, and lists select options compactly', async () => {
    const { elementsText: text } = await capture(fixture, 'forms.html');
    expect(lineWith(text, 'name="name"')).toContain('value="Ada"');
    expect(lineWith(text, 'name="age"')).toContain('value="36"');
    expect(lineWith(text, 'name="volume"')).toMatch(/value="7" min="0" max="10"/);
    expect(lineWith(text, 'name="birthday"')).toContain('value="1815-12-10"');
    expect(lineWith(text, 'name="terms"')).toContain(' checked');
    expect(lineWith(text, 'name="news"')).not.toContain('checked');
    expect(lineWith(text, 'name="size"')).toContain('selected="Medium" options="Small|Medium|Large"');
    expect(lineWith(text, 'name="country"')).toMatch(/options="Austria\|.*\|Laos\|…3 more"/);
    expect(lineWith(text, 'name="toppings"')).toContain('selected="Cheese, Olives"');
    expect(lineWith(text, 'name="bio"')).toContain('value="Counts machines"');
    expect(text).not.toContain('<option');
    for (const type of ['email', 'search', 'tel', 'url', 'time', 'color', 'file']) expect(lineWith(text, `type="${type}"`), type).toBeDefined();
  });

  it('never shows a password, hidden inputs, disabled, fieldset-disabled or inert controls', async () => {
    const state = await capture(fixture, 'forms.html');
    const text = state.elementsText;
    expect(lineWith(text, 'type="password"')).toBeDefined();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('hidden-token-value');
    for (const name of ['disabled-field', 'in-disabled-fieldset', 'inert-field']) expect(text).not.toContain(name);
    for (const label of ['Disabled button', 'Fieldset button', 'Inert button']) expect(lineWith(text, label), label).toBeUndefined();
    await fixture.driver.fill(state.elements.get(indexWith(text, 'type="password"'))!, 'typed-secret');
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).not.toContain('typed-secret');
  });

  it('updates the live state after the agent acts', async () => {
    const state = await capture(fixture, 'forms.html');
    const text = state.elementsText;
    await fixture.driver.fill(state.elements.get(indexWith(text, 'name="email"'))!, 'ada@example.com');
    await fixture.driver.click(state.elements.get(indexWith(text, 'name="news"'))!);
    expect(await fixture.driver.selectOption(state.elements.get(indexWith(text, 'name="size"'))!, 'Large')).toEqual(['Large']);
    await fixture.driver.click(state.elements.get(indexWith(text, 'Styled checkbox'))!);
    const after = (await state.reader.capture({ screenshot: false })).elementsText;
    expect(lineWith(after, 'name="email"')).toContain('value="ada@example.com"');
    expect(lineWith(after, 'name="news"')).toContain(' checked');
    expect(lineWith(after, 'name="size"')).toContain('selected="Large"');
    expect(lineWith(after, 'Styled checkbox')).toMatch(/<label type="checkbox" checked>/);
  });
});

describe('dropdowns, menus and trees', () => {
  it('lists a custom dropdown\u2019s options once it is open, as new elements, and shows the choice', async () => {
    const state = await capture(fixture, 'dropdowns.html');
    expect(lineWith(state.elementsText, 'name="fruit"')).toContain('options="Apple|Banana|Cherry"');
    expect(state.elementsText).not.toContain('Green');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Choose a colour'))!);
    const open = await state.reader.capture({ screenshot: false });
    expect(lineWith(open.elementsText, 'Choose a colour')).toContain('aria-expanded="true"');
    expect(lineWith(open.elementsText, 'Green')).toMatch(/^\t?\*\[\d+\]<li role="option" aria-selected="false">Green \/>$/);
    await fixture.driver.click(open.elements.get(indexWith(open.elementsText, 'Green'))!);
    const chosen = await state.reader.capture({ screenshot: false });
    expect(lineWith(chosen.elementsText, 'aria-expanded="false">Green')).toMatch(/<button aria-expanded="false">Green \/>$/);
    expect(chosen.elementsText).not.toContain('role="option"');
  });

  it('hides a closed menu\u2019s items (visibility:hidden) and shows them when it opens', async () => {
    const state = await capture(fixture, 'dropdowns.html');
    expect(state.elementsText).not.toContain('Sign out');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Account menu'))!);
    const open = (await state.reader.capture({ screenshot: false })).elementsText;
    expect(lineWith(open, 'Profile')).toMatch(/<div role="menuitem">Profile/);
    expect(lineWith(open, 'Sign out')).toBeDefined();
  });

  it('reaches the items of a tree once its node is expanded', async () => {
    const state = await capture(fixture, 'dropdowns.html');
    expect(lineWith(state.elementsText, 'Documents')).toContain('aria-expanded="false"');
    expect(state.elementsText).not.toContain('Report.pdf');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Documents'))!);
    const open = (await state.reader.capture({ screenshot: false })).elementsText;
    expect(lineWith(open, 'Documents')).toContain('aria-expanded="true"');
    expect(lineWith(open, 'Report.pdf')).toMatch(/^\t\*\[\d+\]<li role="treeitem">Report.pdf \/>$/);
    expect(lineWith(open, 'Budget.xlsx')).toBeDefined();
  });
});

describe('shadow DOM', () => {
  it('walks open and closed shadow roots in rendered order, without hidden text', async () => {
    const state = await capture(fixture, 'shadow.html');
    const text = state.elementsText;
    expect(lineWith(text, 'Shadow button')).toBeDefined();
    expect(lineWith(text, 'Closed shadow button')).toBeDefined();
    expect(text.split('Slotted title')).toHaveLength(2);
    expect(text.indexOf('Slotted title')).toBeLessThan(text.indexOf('Shadow paragraph'));
    expect(text).not.toContain('Hidden shadow text');
    await fixture.driver.click(state.elements.get(indexWith(text, 'Shadow button'))!);
    expect((await state.reader.capture({ screenshot: false })).elementsText).toContain('shadow clicked');
  });
});

describe('frames', () => {
  it('merges same-origin and cross-origin iframes between boundary lines, skipping hidden and far-away ones', async () => {
    const state = await capture(fixture, 'frames.html');
    const text = state.elementsText;
    expect(lineWith(text, 'Top button')).toBeDefined();
    expect(lineWith(text, 'Frame button same')).toBeDefined();
    expect(lineWith(text, 'Frame button cross')).toBeDefined();
    expect(text).toContain(`--- iframe ${fixture.server.otherOrigin}/frame-inner.html?name=cross ---`);
    expect(text.match(/--- end of iframe ---/g)).toHaveLength(2);
    expect(text).not.toContain('Frame button hidden');
    expect(text).not.toContain('Frame button below');
    const cross = state.elements.get(indexWith(text, 'Frame button cross'))!;
    expect(cross.frameId).not.toBe(state.elements.get(indexWith(text, 'Top button'))!.frameId);
    await fixture.driver.click(cross);
    expect((await state.reader.capture({ screenshot: false })).elementsText).toContain('clicked cross');
  });

  it('includes frames below the fold in whole-page mode', async () => {
    const { elementsText: text } = await capture(fixture, 'frames.html', { viewportExpansion: -1 });
    expect(lineWith(text, 'Frame button below')).toBeDefined();
    expect(text).not.toContain('Frame button hidden');
  });
});

describe('frames that cannot be seen', () => {
  it('does not index an iframe that is transparent, hidden or covered by an overlay', async () => {
    const { elementsText: text } = await capture(fixture, 'frames-hidden.html');
    expect(lineWith(text, 'Frame button shown')).toBeDefined();
    expect(lineWith(text, 'Overlay button')).toBeDefined();
    for (const hidden of ['transparent', 'invisible', 'covered']) expect(text, hidden).not.toContain(`Frame button ${hidden}`);
  });

  it('does not index an iframe behind an open modal dialog, even beside the dialog', async () => {
    const { elementsText: text } = await capture(fixture, 'frames-modal.html');
    expect(lineWith(text, 'Dialog OK')).toBeDefined();
    expect(text).not.toContain('Frame button under');
  });
});

describe('scrolling', () => {
  it('marks an inner scroll box with what it hides, and scrolls inside it by its index', async () => {
    const state = await capture(fixture, 'scroll.html');
    const boxLine = lineWith(state.elementsText, 'scrollable:');
    expect(boxLine).toMatch(/\(scrollable: 0px above, \d+px below\)$/);
    expect(lineWith(state.elementsText, 'Row 1')).toMatch(/^\t/);
    expect(lineWith(state.elementsText, 'Row 20')).toBeUndefined();
    await fixture.driver.scroll({ ref: state.elements.get(indexWith(state.elementsText, 'scrollable:'))!, deltaY: 600 });
    const after = await state.reader.capture({ screenshot: false });
    expect(lineWith(after.elementsText, 'scrollable:')).toMatch(/\(scrollable: 600px above, \d+px below\)$/);
    expect(lineWith(after.elementsText, 'Row 1 ')).toBeUndefined();
    expect(lineWith(after.elementsText, 'Row 17')).toBeDefined();
  });

  it('marks elements loaded by infinite scroll as new', async () => {
    const state = await capture(fixture, 'infinite.html');
    expect(state.pixelsBelow).toBeGreaterThan(0);
    expect(state.elementsText).not.toContain('Post 11');
    await fixture.driver.scroll({ toPercent: 100 });
    const down = await state.reader.capture({ screenshot: false });
    expect(down.pixelsAbove).toBeGreaterThan(0);
    expect(lineWith(down.elementsText, 'Post 11')).toMatch(/^\*\[\d+\]/);
  });

  it('keeps indices while scrolling away and back, without marking returning elements new', async () => {
    const state = await capture(fixture, 'long.html');
    const first = indexWith(state.elementsText, 'Link 1 ');
    await fixture.driver.scroll({ deltaY: 6000 });
    const away = await state.reader.capture({ screenshot: false });
    expect(lineWith(away.elementsText, 'Link 1 ')).toBeUndefined();
    expect(away.pixelsAbove).toBeGreaterThanOrEqual(6000);
    expect(away.newIndices.size).toBeGreaterThan(0);
    await fixture.driver.scroll({ toPercent: 0 });
    const back = await state.reader.capture({ screenshot: false });
    expect(indexWith(back.elementsText, 'Link 1 ')).toBe(first);
    expect(lineWith(back.elementsText, 'Link 1 ')).toMatch(/^\[\d+\]/);
    expect(back.newIndices.size).toBe(0);
  });
});

describe('index stability', () => {
  it('keeps indices across a re-render and marks only new elements', async () => {
    const state = await capture(fixture, 'spa.html');
    const add = indexWith(state.elementsText, 'Add item');
    const milk = indexWith(state.elementsText, 'Remove Milk');
    const bread = indexWith(state.elementsText, 'Remove Bread');
    await fixture.driver.click(state.elements.get(add)!);
    const second = await state.reader.capture({ screenshot: false });
    expect(second.elementsText).toContain('Clicks: 1');
    expect(indexWith(second.elementsText, 'Add item')).toBe(add);
    expect(indexWith(second.elementsText, 'Remove Milk')).toBe(milk);
    expect(indexWith(second.elementsText, 'Remove Bread')).toBe(bread);
    expect(lineWith(second.elementsText, 'Remove Item 3')).toMatch(/^\*\[\d+\]/);
    expect([...second.newIndices]).toEqual([indexWith(second.elementsText, 'Remove Item 3')]);
    await fixture.driver.click(second.elements.get(milk)!);
    const third = await state.reader.capture({ screenshot: false });
    expect(third.elementsText).not.toContain('Remove Milk');
    expect(indexWith(third.elementsText, 'Remove Bread')).toBe(bread);
    expect(third.newIndices.size).toBe(0);
  });
});

describe('strict pages', () => {
  it('snapshots a page whose Content-Security-Policy forbids scripts and eval', async () => {
    const { elementsText: text } = await capture(fixture, 'csp.html');
    expect(lineWith(text, 'Button under CSP')).toBeDefined();
    expect(text).toContain('A page that forbids every script and eval');
  });
});

describe('viewport expansion and long pages', () => {
  it('indexes the viewport by default, more with an expansion, the whole page with -1', async () => {
    const viewport = await capture(fixture, 'long.html');
    const expanded = await capture(fixture, undefined, { viewportExpansion: 1000 });
    const whole = await capture(fixture, undefined, { viewportExpansion: -1 });
    const count = (text: string): number => elementLines(text).length;
    expect(count(viewport.elementsText)).toBeGreaterThan(0);
    expect(count(expanded.elementsText)).toBeGreaterThan(count(viewport.elementsText));
    expect(count(whole.elementsText)).toBe(200);
    expect(lineWith(viewport.elementsText, 'Link 200')).toBeUndefined();
    expect(lineWith(whole.elementsText, 'Link 200')).toBeDefined();
    expect(viewport.pixelsBelow).toBeGreaterThan(10_000);
    expect(viewport.pixelsAbove).toBe(0);
  });

  it('cuts long text with a marker', async () => {
    const { elementsText: text } = await capture(fixture, 'long.html');
    const paragraph = text.split('\n').find((line) => line.startsWith('Paragraph 1 words.'));
    expect(paragraph).toMatch(/…$/);
    expect(paragraph!.length).toBeLessThanOrEqual(101);
  });
});
