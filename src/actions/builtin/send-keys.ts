// The `send_keys` action: presses keys and chords (Enter, Escape, Control+a, Shift+Tab) on the
// focused element, one chord after another. Key names people write are mapped to Playwright's.

import { z } from 'zod';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError, isFatalError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { describeMove, whereabouts } from './element-script';
import { chordParts } from '../../util/chords';

/** Modifier names as written (lower case, without spaces, dashes or underscores) and as pressed. */
const modifierNames: Readonly<Record<string, string>> = {
  ctrl: 'Control',
  control: 'Control',
  ctl: 'Control',
  cmd: 'Meta',
  command: 'Meta',
  meta: 'Meta',
  win: 'Meta',
  windows: 'Meta',
  super: 'Meta',
  alt: 'Alt',
  option: 'Alt',
  opt: 'Alt',
  shift: 'Shift',
  controlormeta: 'ControlOrMeta',
  mod: 'ControlOrMeta',
};

/** Other key names as written and as pressed. */
const keyNames: Readonly<Record<string, string>> = {
  enter: 'Enter',
  return: 'Enter',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  space: 'Space',
  spacebar: 'Space',
  backspace: 'Backspace',
  bksp: 'Backspace',
  del: 'Delete',
  delete: 'Delete',
  ins: 'Insert',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pgup: 'PageUp',
  pagedown: 'PageDown',
  pgdn: 'PageDown',
  pgdown: 'PageDown',
  up: 'ArrowUp',
  arrowup: 'ArrowUp',
  uparrow: 'ArrowUp',
  down: 'ArrowDown',
  arrowdown: 'ArrowDown',
  downarrow: 'ArrowDown',
  left: 'ArrowLeft',
  arrowleft: 'ArrowLeft',
  leftarrow: 'ArrowLeft',
  right: 'ArrowRight',
  arrowright: 'ArrowRight',
  rightarrow: 'ArrowRight',
  capslock: 'CapsLock',
  numlock: 'NumLock',
  scrolllock: 'ScrollLock',
  pause: 'Pause',
  contextmenu: 'ContextMenu',
  menu: 'ContextMenu',
};

const maxChords = 20;

const examples =
  'Use key names such as Enter, Escape, Tab, Backspace, Delete, ArrowDown, PageDown, Home, F5 or one character, and chords such as Control+a or Shift+Tab; separate several with spaces ("Control+a Delete"). To type text, use input_text.';

/** One key as Playwright names it, or undefined when it is not a key. */
function keyName(written: string): string | undefined {
  // One code point is one key to press (an emoji made of several is not a key name anyway).
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- counting code points is the intent
  if ([...written].length === 1) return written;
  const bare = written.toLowerCase().replace(/[\s_-]/g, '');
  const named = modifierNames[bare] ?? keyNames[bare];
  if (named) return named;
  const functionKey = /^f([1-9]|1\d|2[0-4])$/.exec(bare);
  if (functionKey) return `F${functionKey[1]}`;
  const code = /^(key[a-z]|digit\d|numpad\d)$/.exec(bare);
  if (code?.[1])
    return code[1].replace(
      /^(key|digit|numpad)(.)$/,
      (_, prefix: string, rest: string) => `${prefix[0]?.toUpperCase()}${prefix.slice(1)}${rest.toUpperCase()}`,
    );
  return undefined;
}

/**
 * The chords to press for what the model wrote: chords separated by spaces, keys within a chord
 * by `+`, names mapped to Playwright's (`ctrl+a` becomes `Control+a`, `esc` becomes `Escape`).
 * @throws `ActionError` (recoverable) naming an unknown key, with examples.
 */
export function parseKeys(keys: string): string[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw new ActionError('send_keys', `No keys given. ${examples}`);
  if (chords.length > maxChords) throw new ActionError('send_keys', `At most ${maxChords} keys or chords at once, got ${chords.length}. ${examples}`);
  return chords.map((chord) => {
    const parts = chordParts(chord);
    const names = parts.map((part) => keyName(part));
    const unknown = parts.find((_, position) => names[position] === undefined);
    if (unknown !== undefined) throw new ActionError('send_keys', `Unknown key "${unknown}" in "${chord}". ${examples}`);
    return names.join('+');
  });
}

/** Whether some element has the focus; `undefined` when the page cannot tell (an error page, a driver without scripts). */
async function focusedElementExists(context: ActionContext): Promise<boolean | undefined> {
  try {
    const frames = await context.driver.frames({ signal: context.signal });
    const top = frames.find((frame) => frame.parentId === undefined);
    if (!top) return undefined;
    const answer: unknown = await callRuntime(context.driver, top.id, 'hasFocus', undefined, { signal: context.signal });
    return typeof answer === 'boolean' ? answer : undefined;
  } catch (error) {
    if (isFatalError(error)) throw error;
    return undefined;
  }
}

/** Presses keys on the focused element. */
export const sendKeysAction = defineAction({
  name: 'send_keys',
  description:
    'Press keys on the focused element: Enter, Escape, Tab, arrows, or chords such as Control+a and Shift+Tab; several separated by spaces are pressed in turn ("Control+a Delete"). Not for typing text: use input_text.',
  schema: z.object({
    keys: z.string().min(1).max(200).describe('Keys or chords, such as "Enter", "Escape", "Control+a" or "Control+a Delete" (pressed one after another)'),
  }),
  handler: async ({ keys }, context) => {
    const chords = parseKeys(keys);
    // Keys with nothing focused go to the page itself: Enter then submits nothing, and the model
    // must hear that rather than a plain "Pressed Enter".
    const focused = await focusedElementExists(context);
    const before = await whereabouts(context);
    let pressed = 0;
    let move = describeMove(before, before);
    // The keys after one that changed the page (Enter submitting a form) would land on another page.
    while (pressed < chords.length && !move.moved) {
      await context.driver.press(chords[pressed] ?? '', { signal: context.signal });
      pressed++;
      move = describeMove(before, await whereabouts(context));
    }
    const skipped = chords.length > pressed ? ` Did not press ${chords.slice(pressed).join(', ')}: the page changed.` : '';
    const unfocused =
      focused === false ? ' No element had the focus, so the keys went to the page itself; to press them in a field, click it or type into it first.' : '';
    return {
      extractedContent: `Pressed ${chords.slice(0, pressed).join(', then ')}.${unfocused}${move.text}${skipped}`,
      includeInMemory: true,
      ...(move.moved ? { stopSequence: true } : {}),
    };
  },
});
