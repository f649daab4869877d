// Runs in headless Chromium (the vitest `browser` project): element ids and the one lookup that turns them back
// into elements. The registry is per document, so the tests of this file share it and run in order.
import { afterEach, describe, expect, it } from 'vitest';
import { beginSnapshot, elementIdOf, hasSnapshot, knownElements, lookupFailureReason, newToken, resolveElement } from './registry';

/** Puts `html` in the document and returns its elements with an id, by id. */
function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('hasSnapshot', () => {
  // First in the file: the document has no ids yet.
  it('is false until the first id is minted in the document, then true', () => {
    expect(hasSnapshot()).toBe(false);
    const { save } = place('<button id="save">Save</button>');
    elementIdOf(save!);
    expect(hasSnapshot()).toBe(true);
  });
});

describe('elementIdOf', () => {
  it('gives each element its own id, and the same id every time for the same element', () => {
    const { one, two } = place('<button id="one">One</button><button id="two">Two</button>');
    const first = elementIdOf(one!);
    expect(elementIdOf(one!)).toBe(first);
    expect(elementIdOf(two!)).not.toBe(first);
  });

  it('keeps the id across snapshots, and gives a new element a new id', () => {
    const { old } = place('<a id="old" href="#a">Old</a>');
    const id = elementIdOf(old!);
    beginSnapshot();
    expect(elementIdOf(old!)).toBe(id);
    const added = document.createElement('a');
    document.body.append(added);
    expect(elementIdOf(added)).not.toBe(id);
  });

  it('marks every id of the document with the same document token', () => {
    const { a, b } = place('<i id="a"></i><i id="b"></i>');
    const [tokenA, numberA] = elementIdOf(a!).split('-');
    const [tokenB, numberB] = elementIdOf(b!).split('-');
    expect(tokenA).toBe(tokenB);
    expect(tokenA).toMatch(/^[0-9a-z]+$/);
    expect(Number(numberB)).toBe(Number(numberA) + 1);
  });
});

describe('resolveElement', () => {
  it('finds the element behind an id of the last snapshot', () => {
    beginSnapshot();
    const { target } = place('<button id="target">Go</button>');
    const elementId = elementIdOf(target!);
    expect(resolveElement({ elementId })).toBe(target);
  });

  it("answers 'removed' once the element left the document", () => {
    beginSnapshot();
    const { target } = place('<button id="target">Go</button>');
    const elementId = elementIdOf(target!);
    target!.remove();
    expect(resolveElement({ elementId })).toBe('removed');
  });

  it('never swaps a removed element for another that now matches its selector', () => {
    beginSnapshot();
    const { target } = place('<button id="target">Go</button>');
    const elementId = elementIdOf(target!);
    const { target: replacement } = place('<button id="target">Go again</button>');
    expect(replacement).not.toBe(target);
    expect(resolveElement({ elementId, selector: 'button[id="target"]' })).toBe('removed');
  });

  it("answers 'document' for an id minted in another document, whatever its selector finds", () => {
    const { target } = place('<button id="target">Go</button>');
    const own = elementIdOf(target!);
    const foreign = `${own.split('-')[0]}x-1`;
    expect(resolveElement({ elementId: foreign })).toBe('document');
    expect(resolveElement({ elementId: 'zzzzzz-1', selector: '#target' })).toBe('document');
  });

  it('finds an element by its id while it lives, though a later snapshot did not list it', () => {
    const { target } = place('<button id="target">Go</button>');
    const elementId = elementIdOf(target!);
    beginSnapshot();
    expect(resolveElement({ elementId })).toBe(target);
    expect(elementIdOf(target!)).toBe(elementId);
    target!.remove();
    expect(resolveElement({ elementId })).toBe('removed');
  });

  it('never swaps an element for another that its selector finds', () => {
    const { target } = place('<button id="target">Go</button><input id="field" name="q">');
    const elementId = elementIdOf(target!);
    target!.remove();
    expect(resolveElement({ elementId, selector: 'input[name="q"]' })).toBe('removed');
    const unknown = `${elementId.split('-')[0]}-999999`;
    expect(resolveElement({ elementId: unknown, selector: '#field' })).toBe('removed');
  });

  it('gives documents tokens of their own even when the page seeds Math.random', () => {
    const original = Math.random;
    Math.random = () => 0.5; // a page with a seeded generator: every document would draw the same
    try {
      expect(newToken()).not.toBe(newToken());
    } finally {
      Math.random = original;
    }
  });
});

describe('knownElements', () => {
  it('holds exactly the elements listed since the last beginSnapshot', () => {
    const { a, b, c } = place('<i id="a"></i><i id="b"></i><i id="c"></i>');
    elementIdOf(a!);
    beginSnapshot();
    elementIdOf(b!);
    elementIdOf(c!);
    expect(knownElements()).toEqual(new Set([b, c]));
    beginSnapshot();
    expect(knownElements().size).toBe(0);
  });
});

describe('lookupFailureReason', () => {
  it('says in words why the element is gone', () => {
    expect(lookupFailureReason('document')).toBe('the page has loaded a new document since');
    expect(lookupFailureReason('removed')).toBe('it was removed from the page');
  });
});
