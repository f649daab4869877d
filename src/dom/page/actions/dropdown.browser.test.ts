// Runs in headless Chromium (the vitest `browser` project): the dropdown reader (native selects, datalists, ARIA lists) and the multiple-select setter.
import { afterEach, describe, expect, it } from 'vitest';
import { resolveElement } from '../registry';
import { readDropdown, selectNative, type DropdownAnswer } from './dropdown';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

type Open = Extract<DropdownAnswer, { status: 'ok' }>;

/** Reads the element as a dropdown; fails on a stale answer. */
function read(element: Element | undefined, options: { register?: boolean; anyVisible?: boolean; filter?: string | null } = {}): Open {
  const answer = readDropdown({
    ...locate(element),
    register: options.register ?? false,
    anyVisible: options.anyVisible ?? false,
    filter: options.filter ?? null,
  });
  if (answer.status !== 'ok') throw new Error(`stale: ${answer.reason}`);
  return answer;
}

const texts = (answer: Open): string[] => answer.options.map((option) => option.text);

describe('readDropdown, native selects and datalists', () => {
  it('lists a select with groups, disabled options and what it shows', () => {
    const { produce } = place(
      '<label>Produce <select id="produce" multiple><optgroup label="Fruits"><option>Apple</option><option selected>Banana</option></optgroup>' +
        '<optgroup label="Old" disabled><option>Quince</option></optgroup><option disabled>  Leek  </option></select></label>',
    );
    const answer = read(produce);
    expect(answer).toMatchObject({ kind: 'native', multiple: true, total: 4, display: 'Banana', description: '<select> "Produce"', within: false });
    expect(answer.options).toEqual([
      { text: 'Apple', value: 'Apple', selected: false, disabled: false, group: 'Fruits', elementId: null },
      { text: 'Banana', value: 'Banana', selected: true, disabled: false, group: 'Fruits', elementId: null },
      { text: 'Quince', value: 'Quince', selected: false, disabled: true, group: 'Old', elementId: null },
      { text: 'Leek', value: 'Leek', selected: false, disabled: true, group: null, elementId: null },
    ]);
  });

  it('lists the datalist suggestions that hold what the field holds, leaving disabled ones out', () => {
    const { city } = place(
      '<input id="city" list="cities" value="Par" placeholder="City"><datalist id="cities"><option value="Paris"><option value="Parma"><option value="Lyon"><option value="Parnu" disabled></datalist>',
    );
    const answer = read(city, { filter: 'par' });
    expect(answer).toMatchObject({ kind: 'datalist', total: 2, display: 'Par', description: '<input> "City"' });
    expect(texts(answer)).toEqual(['Paris', 'Parma']);
    expect(read(city).total).toBe(3);
  });
});

describe('readDropdown, ARIA lists', () => {
  const planets =
    '<span id="planet-label">Planet</span><ul id="planets" role="listbox" aria-labelledby="planet-label">' +
    '<li id="mercury" role="option">Mercury</li><li role="option" aria-selected="true">Venus</li><li role="option" aria-disabled="true">Earth</li></ul>';

  it('reads a listbox from the list itself and from one of its options', () => {
    const { planets: list, mercury } = place(planets);
    const fromList = read(list);
    expect(fromList).toMatchObject({ kind: 'aria', multiple: false, total: 3, description: '<ul role=listbox> "Planet"', within: true });
    expect(fromList.options.map((option) => [option.text, option.selected, option.disabled])).toEqual([
      ['Mercury', false, false],
      ['Venus', true, false],
      ['Earth', false, true],
    ]);
    expect(read(mercury)).toMatchObject({ kind: 'aria', total: 3, description: '<li role=option> "Mercury"', within: true });
  });

  it('gives each option an id when asked, so the driver can click it', () => {
    const { planets: list } = place(planets);
    const [first] = read(list, { register: true }).options;
    expect(resolveElement({ elementId: first?.elementId ?? '' })).toBe(document.getElementById('mercury'));
    expect(read(list).options[0]?.elementId).toBeNull();
  });

  it('finds the list a trigger names, and calls a named list that is empty or hidden closed', () => {
    const { colour, account, menu } = place(
      '<button id="colour" role="combobox" aria-controls="colours">Colour</button><div id="colours"><ul role="listbox"><li role="option">Red</li></ul></div>' +
        '<button id="account" aria-haspopup="menu" aria-controls="menu">Account</button><div id="menu" role="menu" hidden><a role="menuitem">Profile</a></div>',
    );
    expect(texts(read(colour))).toEqual(['Red']);
    expect(read(account)).toMatchObject({ kind: 'closed', total: 0, display: 'Account' });
    menu!.hidden = false;
    expect(read(account)).toMatchObject({ kind: 'aria', total: 1 });
  });

  it('finds a list beside its trigger, by the active descendant, or inside the widget', () => {
    const { beside, active, widget } = place(
      '<div><button id="beside" aria-expanded="true">Sort</button><ul role="menu"><li role="menuitem">Newest</li></ul></div>' +
        '<input id="active" aria-activedescendant="opt"><div role="listbox"><div id="opt" role="option">Chosen</div></div>' +
        '<div id="widget"><div role="tree"><div role="treeitem">Root</div></div></div>',
    );
    expect(texts(read(beside))).toEqual(['Newest']);
    expect(texts(read(active))).toEqual(['Chosen']);
    expect(texts(read(widget))).toEqual(['Root']);
  });

  it('with anyVisible, takes the nearest visible list the snapshot has not listed', () => {
    const { trigger, seen } = place(
      '<button id="trigger" aria-haspopup="true">Open</button>' +
        '<ul id="seen" role="listbox" style="margin-top: 10px"><li role="option">Known</li></ul>' +
        '<ul id="far" role="listbox" style="margin-top: 400px"><li role="option">Far</li></ul>' +
        '<ul id="near" role="listbox" style="position: absolute; top: 40px"><li role="option">Near</li></ul>',
    );
    // The snapshot listed an option of this one: the model has seen it.
    locate(seen!.querySelector('li')!);
    expect(read(trigger)).toMatchObject({ kind: 'closed' });
    expect(texts(read(trigger, { anyVisible: true }))).toEqual(['Near']);
  });

  it('names groups, and tells several choices by aria-multiselectable or checkbox items', () => {
    const { tags, filters } = place(
      '<div id="tags" role="listbox" aria-multiselectable="true"><div role="group" aria-label="Colours"><div role="option" aria-selected="true">Red</div></div>' +
        '<span id="sizes">Sizes</span><div role="group" aria-labelledby="sizes"><div role="option" aria-label="Small size">S</div></div></div>' +
        '<div id="filters" role="menu"><div role="menuitemcheckbox" aria-checked="true">In stock</div></div>',
    );
    const answer = read(tags);
    expect(answer.multiple).toBe(true);
    expect(answer.options.map((option) => [option.text, option.group, option.selected])).toEqual([
      ['Red', 'Colours', true],
      ['Small size', 'Sizes', false],
    ]);
    expect(read(filters)).toMatchObject({ multiple: true, options: [expect.objectContaining({ text: 'In stock', selected: true })] });
  });

  it('quotes a role the page wrote oddly, and says when an element is no dropdown', () => {
    const { odd, plain } = place('<div id="odd" role=\'x" y\'>Odd</div><button id="plain">Plain</button>');
    expect(read(odd).description).toBe('<div role="x\\" y"> "Odd"');
    expect(read(plain)).toMatchObject({ kind: 'none', options: [], display: 'Plain', description: '<button> "Plain"' });
  });

  it('answers stale for an element that is gone', () => {
    expect(readDropdown({ ...otherDocument, register: false, anyVisible: false, filter: null })).toEqual({
      status: 'stale',
      reason: 'the page has loaded a new document since',
    });
  });
});

describe('selectNative', () => {
  it('selects exactly the given options and fires input and change', () => {
    const { produce } = place('<select id="produce" multiple><option selected>Apple</option><option>Banana</option><option>Carrot</option></select>');
    const events: string[] = [];
    for (const type of ['input', 'change']) produce!.addEventListener(type, () => events.push(type));
    expect(selectNative({ ...locate(produce), indices: [1, 2] })).toEqual({ status: 'ok', selected: ['Banana', 'Carrot'] });
    expect(events).toEqual(['input', 'change']);
  });

  it('selects nothing in an element that is no select, and answers stale for one that is gone', () => {
    const { plain } = place('<div id="plain"></div>');
    expect(selectNative({ ...locate(plain), indices: [0] })).toEqual({ status: 'ok', selected: [] });
    expect(selectNative({ ...otherDocument, indices: [0] })).toMatchObject({ status: 'stale' });
  });
});
