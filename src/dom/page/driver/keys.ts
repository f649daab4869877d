// Key presses dispatched in the page, for drivers without a keyboard of their own: keydown,
// keypress and keyup on the focused element, with the default actions a page relies on most
// (Enter submits a form, Tab moves the focus, printable keys and Backspace edit a field).

/** What one chord names: the key and the modifiers held. */
interface Chord {
  readonly key: string;
  readonly modifiers: ReadonlySet<string>;
}

const modifierNames = new Set(['Alt', 'Control', 'Meta', 'Shift']);

/** `Control+Shift+A` → key `A` with Control and Shift held. */
function parseChord(chord: string): Chord {
  const parts = chord.split('+').filter(Boolean);
  const key = parts.pop() ?? '';
  return { key, modifiers: new Set(parts.filter((part) => modifierNames.has(part))) };
}

const editable = (element: Element | null): element is HTMLInputElement | HTMLTextAreaElement =>
  element instanceof HTMLTextAreaElement ||
  (element instanceof HTMLInputElement && !['checkbox', 'radio', 'submit', 'button', 'reset', 'file', 'image'].includes(element.type));

/** The elements Tab moves through, in document order (tabindex order is not modelled). */
function focusable(): HTMLElement[] {
  const selector = 'a[href],button,input:not([type=hidden]),select,textarea,[tabindex]:not([tabindex="-1"]),[contenteditable=""],[contenteditable=true]';
  return [...document.querySelectorAll<HTMLElement>(selector)].filter((element) => !element.matches(':disabled') && element.getClientRects().length > 0);
}

/** Runs a key's default action where the page did not prevent it. */
function defaultAction(target: Element, { key, modifiers }: Chord): void {
  if (key === 'Enter') {
    if (target instanceof HTMLInputElement && target.form) target.form.requestSubmit();
    else if (target instanceof HTMLTextAreaElement) insert(target, '\n');
    else if (target instanceof HTMLElement && (target.localName === 'a' || target.localName === 'button')) target.click();
    return;
  }
  if (key === 'Tab') {
    const order = focusable();
    const backwards = modifiers.has('Shift');
    const position = order.indexOf(target as HTMLElement);
    let next: HTMLElement | undefined;
    if (position !== -1) next = order[(position + (backwards ? -1 : 1) + order.length) % order.length];
    else {
      // Focused outside the tab order (tabindex="-1", a dialog focused by script): its neighbours in document order.
      const after = order.findIndex((element) => (target.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0);
      next = backwards ? (order[(after === -1 ? order.length : after) - 1] ?? order[order.length - 1]) : order[after === -1 ? 0 : after];
    }
    next?.focus();
    return;
  }
  if (key === 'Backspace' && editable(target)) {
    const start = target.selectionStart ?? target.value.length;
    const end = target.selectionEnd ?? start;
    const from = start === end ? Math.max(0, start - 1) : start;
    setValue(target, target.value.slice(0, from) + target.value.slice(end), from);
    return;
  }
  if ((key === 'a' || key === 'A') && (modifiers.has('Control') || modifiers.has('Meta')) && editable(target)) {
    target.select();
    return;
  }
  if (key.length === 1 && !modifiers.has('Control') && !modifiers.has('Meta') && !modifiers.has('Alt') && editable(target)) insert(target, key);
}

function setValue(field: HTMLInputElement | HTMLTextAreaElement, value: string, caret: number): void {
  const prototype = field instanceof HTMLInputElement ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, value);
  try {
    field.setSelectionRange(caret, caret);
  } catch {
    // number and email inputs have no selection
  }
  field.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
}

function insert(field: HTMLInputElement | HTMLTextAreaElement, text: string): void {
  let start: number;
  let end: number;
  try {
    start = field.selectionStart ?? field.value.length;
    end = field.selectionEnd ?? start;
  } catch {
    start = end = field.value.length;
  }
  setValue(field, field.value.slice(0, start) + text + field.value.slice(end), start + text.length);
}

/**
 * Presses chords such as `Enter`, `Control+A` or `Shift+Tab` (several separated by spaces) on the
 * focused element. Returns false when nothing had the focus. Events are untrusted, so pages that
 * check `isTrusted` ignore them; drivers with a real keyboard implement `press` themselves.
 */
export function pressKeys({ keys }: { readonly keys: string }): boolean {
  const target = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  // The focus is inside a frame: the core sends the keys to the frames in turn.
  if (!target || target.localName === 'iframe' || target.localName === 'frame') return false;
  for (const chord of keys.split(/\s+/).filter(Boolean).map(parseChord)) {
    const focused = document.activeElement ?? target;
    const init: KeyboardEventInit = {
      key: chord.key,
      bubbles: true,
      cancelable: true,
      composed: true,
      altKey: chord.modifiers.has('Alt'),
      ctrlKey: chord.modifiers.has('Control'),
      metaKey: chord.modifiers.has('Meta'),
      shiftKey: chord.modifiers.has('Shift'),
    };
    const proceed = focused.dispatchEvent(new KeyboardEvent('keydown', init));
    if (proceed && chord.key.length === 1) focused.dispatchEvent(new KeyboardEvent('keypress', init));
    if (proceed) defaultAction(focused, chord);
    focused.dispatchEvent(new KeyboardEvent('keyup', init));
  }
  return true;
}

/** Goes back in the document's history, as the browser's back button does. */
export function goBack(): boolean {
  const had = history.length > 1;
  history.back();
  return had;
}
