// Key presses for the Puppeteer driver: chords such as `Control+a` pressed with Puppeteer's
// keyboard, one after another. Puppeteer presses one key at a time, so chords are held here.

import type { KeyInput, Keyboard } from 'puppeteer-core';
import { BrowserError } from '../errors';
import { chordParts } from '../util/chords';

const modifiers = new Set(['Alt', 'Control', 'Meta', 'Shift']);

/** The key Puppeteer knows by this name: `ControlOrMeta` is Meta on macOS, `Space` is the space bar. */
function keyOf(name: string, platform: NodeJS.Platform): string {
  if (name === 'ControlOrMeta') return platform === 'darwin' ? 'Meta' : 'Control';
  return name;
}

/**
 * Presses `keys` (chords separated by spaces, keys within a chord by `+`, as the core's
 * `send_keys` writes them) on the focused element: modifiers go down, the key is pressed, the
 * modifiers come up again, even when the key fails.
 * @throws `BrowserError` naming a key Puppeteer does not know.
 */
export async function pressKeys(keyboard: Keyboard, keys: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw new BrowserError('No keys given: name a key such as Enter, or a chord such as Control+a.');
  for (const chord of chords) {
    const parts = chordParts(chord).map((part) => keyOf(part, platform));
    const key = parts.at(-1) ?? '';
    const held = parts.slice(0, -1);
    const notModifier = held.find((part) => !modifiers.has(part));
    if (notModifier !== undefined)
      throw new BrowserError(`"${notModifier}" in "${chord}" is not a modifier: hold only Alt, Control, Meta or Shift with a key.`);
    const down: string[] = [];
    try {
      for (const modifier of held) {
        await keyboard.down(modifier as KeyInput);
        down.push(modifier);
      }
      await pressOne(keyboard, key, held.length > 0, chord);
    } finally {
      for (const modifier of down.reverse()) await keyboard.up(modifier as KeyInput).catch(() => undefined);
    }
  }
}

/** One key; a character Puppeteer's US layout lacks (such as `é`) is typed as text when no modifier is held. */
async function pressOne(keyboard: Keyboard, key: string, withModifiers: boolean, chord: string): Promise<void> {
  try {
    await keyboard.press(key as KeyInput);
  } catch (error) {
    const unknown = error instanceof Error && /Unknown key/i.test(error.message);
    if (!unknown) throw error;
    // eslint-disable-next-line @typescript-eslint/no-misused-spread -- one code point (an astral one too) is one character to type
    if ([...key].length === 1 && !withModifiers) {
      await keyboard.sendCharacter(key);
      return;
    }
    throw new BrowserError(`Unknown key "${key}" in "${chord}": use key names such as Enter, Escape, Tab, ArrowDown, PageDown, F5 or one character.`, {
      cause: error,
    });
  }
}
