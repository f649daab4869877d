// Runs in headless Chromium (the vitest `browser` project): installing the page runtime and calling it by name.
// The build defines __PLANNAV_RUNTIME_KEY__; vitest does not, so the test gives the free global a value itself.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultIncludeAttributes } from '../page-state-reader';
import type { FrameSnapshot, SnapshotElement } from '../types';
import { install, runtimeMethods, type InstalledRuntime } from './runtime';

const key = '__plannavRuntime_browsertest';
const host = window as unknown as Record<string, unknown>;
const options = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };

beforeAll(() => {
  // What the build's `define` replaces; a free identifier in a module reads the global object.
  (globalThis as Record<string, unknown>).__PLANNAV_RUNTIME_KEY__ = key;
});

afterEach(() => {
  document.body.innerHTML = '';
});

const runtime = (): InstalledRuntime => host[key] as InstalledRuntime;

describe('install', () => {
  // First in the file: nothing is installed yet.
  it('installs the runtime once under its versioned name, frozen and hidden from enumeration', () => {
    expect(host[key]).toBeUndefined();
    expect(install()).toBe(true);
    expect(install()).toBe(false);
    expect(runtime().version).toBe(key);
    expect(Object.isFrozen(runtime())).toBe(true);
    expect(Object.keys(window)).not.toContain(key);
    expect(() => {
      host[key] = {};
    }).toThrow(TypeError);
  });

  it('installs the listener recorder with it: a closed shadow root attached afterwards is walked', () => {
    document.body.innerHTML = '<x-panel></x-panel>';
    const root = document.querySelector('x-panel')!.attachShadow({ mode: 'closed' });
    root.innerHTML = '<button>Hidden from the page</button>';
    const snapshot = runtime().call('snapshot', options) as FrameSnapshot;
    expect(snapshot.items.map((item) => item.text)).toEqual(['Hidden from the page']);
  });
});

describe('the installed runtime', () => {
  it('runs a method by name with its JSON argument', () => {
    document.body.innerHTML = '<button>Save</button>';
    const snapshot = runtime().call('snapshot', options) as FrameSnapshot;
    expect(snapshot.items).toHaveLength(1);
    expect(runtime().call('changes', undefined)).toEqual({ newDocument: false, newElements: 0 });
  });

  it('refuses a method it does not have, inherited names included', () => {
    expect(() => runtime().call('launchMissiles', {})).toThrow('The plannav page runtime has no method launchMissiles.');
    expect(() => runtime().call('toString', {})).toThrow('has no method toString');
    expect(() => runtime().call('__proto__', {})).toThrow('has no method __proto__');
  });

  it('finds the element behind a snapshot id, and gives an element the id a snapshot gives it', () => {
    document.body.innerHTML = '<a href="#top">Top</a>';
    const snapshot = runtime().call('snapshot', options) as FrameSnapshot;
    const [item] = snapshot.items as SnapshotElement[];
    const link = document.querySelector('a')!;
    expect(runtime().element({ elementId: item!.elementId })).toBe(link);
    expect(runtime().idOf(link)).toBe(item!.elementId);
    link.remove();
    expect(runtime().element({ elementId: item!.elementId })).toBe('removed');
  });

  it('offers the element methods for drivers with handles, and the JSON methods by name', () => {
    expect(Object.keys(runtime().elements).sort()).toEqual([
      'boxKey',
      'chooseOption',
      'clickTarget',
      'dispatchClick',
      'fillField',
      'findOption',
      'frameBoxes',
      'pressArrived',
      'scroll',
      'setFormattedValue',
      'stableBox',
    ]);
    for (const method of [
      'snapshot',
      'changes',
      'domQuiet',
      'clickPoint',
      'fill',
      'select',
      'highlight',
      'removeHighlight',
      'pressKeys',
      'goBack',
      'pageText',
      'extractHtml',
    ]) {
      expect(typeof (runtimeMethods as Record<string, unknown>)[method], method).toBe('function');
    }
  });
});
