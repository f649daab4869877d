// The page side of filling fields and choosing options: values with a machine format set through
// the prototype's setter (so frameworks see them), and options found by label or value. Runs in the page.

/** The option of a select matching a label or value, or the list of labels when none matches. */
export function findOption(element: Element, wanted: string): { index: number } | { labels: string[] } {
  if (!(element instanceof HTMLSelectElement)) return { labels: [] };
  const clean = (value: string): string => value.replace(/\s+/g, ' ').trim().toLowerCase();
  const target = clean(wanted);
  const options = [...element.options];
  let index = options.findIndex((option) => (option.label || option.text).trim() === wanted.trim());
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.value) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text).includes(target));
  return index === -1 ? { labels: options.map((option) => option.label || option.text) } : { index };
}

/**
 * Sets the value of an input whose value has a machine format (date, time, month, week, range,
 * colour) through the prototype's setter, so frameworks that track the value (React) see the
 * change, then fires input and change. Returns the value the input kept, or null for other elements.
 */
export function setFormattedValue(element: Element, value: string): string | null {
  const formatted = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color']);
  if (!(element instanceof HTMLInputElement) || !formatted.has(element.type)) return null;
  element.focus();
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  if (setter) setter.call(element, value);
  else element.value = value;
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return element.value;
}

/**
 * Replaces the text of a field as typing would leave it, for drivers without a keyboard: through
 * the value setter of the element's prototype (React and other frameworks track it), or the text
 * of an editable element; then input and change events. Returns the value the field kept, or null
 * when the element takes no text.
 */
export function fillField(element: Element, text: string): string | null {
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    element.focus();
    const prototype = element instanceof HTMLInputElement ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(prototype, 'value')?.set;
    if (setter) setter.call(element, text);
    else element.value = text;
    element.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    element.dispatchEvent(new Event('change', { bubbles: true }));
    return element.value;
  }
  if (element instanceof HTMLElement && element.isContentEditable) {
    element.focus();
    element.textContent = text;
    element.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    return element.textContent;
  }
  return null;
}

/** Selects the option at `index` of a select as a person would, firing input and change; returns the selected values. */
export function chooseOption(element: Element, index: number): string[] {
  if (!(element instanceof HTMLSelectElement)) return [];
  element.focus();
  element.selectedIndex = index;
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return [...element.selectedOptions].map((option) => option.value);
}
