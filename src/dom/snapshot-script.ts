// The script the core runs in each page frame to list what the model can act on. It must stay
// self-contained (drivers serialise `run`), and walks the DOM once per call.

import type { PageScript } from '../browser/types';
import type { FrameSnapshot, SnapshotItem, SnapshotScriptOptions } from './types';

/** Where the script keeps its per-document state on `window`. */
const stateKey = '__plannavSnapshot';

function runSnapshot(options: SnapshotScriptOptions): FrameSnapshot {
  // Everything below runs in the page: no imports, no closures over module values.
  type State = { token: string; next: number; ids: WeakMap<Element, string>; elements: Map<string, WeakRef<Element>> };
  const host = window as unknown as Record<string, State | undefined>;
  const state: State =
    host['__plannavSnapshot'] ??
    (host['__plannavSnapshot'] = { token: Math.random().toString(36).slice(2, 8), next: 1, ids: new WeakMap(), elements: new Map() });
  const interactiveTags = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'details', 'option', 'label']);
  const interactiveRoles = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'combobox', 'listbox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem',
  ]);
  const skipTags = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'meta', 'link']);
  const viewportHeight = window.innerHeight;
  const viewportWidth = window.innerWidth;
  const expansion = options.viewportExpansion;
  const cap = (value: string): string => {
    const clean = value.replace(/\s+/g, ' ').trim();
    return clean.length > options.maxTextLength ? `${clean.slice(0, options.maxTextLength)}…` : clean;
  };
  const isVisible = (element: Element): boolean => {
    const style = window.getComputedStyle(element);
    if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const inViewport = (element: Element): boolean => {
    if (expansion < 0) return true;
    const box = element.getBoundingClientRect();
    return box.bottom >= -expansion && box.top <= viewportHeight + expansion && box.right >= 0 && box.left <= viewportWidth;
  };
  const isTopMost = (element: Element): boolean => {
    const box = element.getBoundingClientRect();
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x > viewportWidth || y > viewportHeight) return true;
    const top = document.elementFromPoint(x, y);
    return top !== null && (top === element || element.contains(top) || top.contains(element));
  };
  const isInteractive = (element: Element): boolean => {
    const tag = element.tagName.toLowerCase();
    if (element.hasAttribute('disabled') || element.closest('[inert]')) return false;
    if (interactiveTags.has(tag)) return tag !== 'input' || (element as HTMLInputElement).type !== 'hidden';
    const role = element.getAttribute('role');
    if (role && interactiveRoles.has(role)) return true;
    if (element.hasAttribute('onclick') || (element as HTMLElement).isContentEditable) return true;
    const tabIndex = element.getAttribute('tabindex');
    return tabIndex !== null && tabIndex !== '-1';
  };
  const idOf = (element: Element): string => {
    let id = state.ids.get(element);
    if (!id) {
      id = `${state.token}-${state.next++}`;
      state.ids.set(element, id);
    }
    state.elements.set(id, new WeakRef(element));
    return id;
  };
  const items: SnapshotItem[] = [];
  const walk = (node: Node, depth: number): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = cap(node.textContent ?? '');
      if (text && node.parentElement && isVisible(node.parentElement)) items.push({ kind: 'text', text, depth });
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName.toLowerCase();
    if (skipTags.has(tag)) return;
    if (!isVisible(node) && node.children.length === 0) return;
    let childDepth = depth;
    if (isInteractive(node) && isVisible(node) && inViewport(node) && isTopMost(node)) {
      const attributes: Record<string, string> = {};
      for (const name of options.includeAttributes) {
        const value = node.getAttribute(name);
        if (value !== null) attributes[name] = cap(value);
      }
      if ((tag === 'input' || tag === 'textarea') && (node as HTMLInputElement).type !== 'password') {
        const value = (node as HTMLInputElement).value;
        if (value) attributes.value = cap(value);
      }
      items.push({ kind: 'element', elementId: idOf(node), tagName: tag, attributes, text: cap(tag === 'input' ? '' : (node as HTMLElement).innerText ?? ''), depth });
      childDepth = depth + 1;
      if (tag !== 'select' && tag !== 'div' && tag !== 'span' && tag !== 'li') return;
    }
    const children = node.shadowRoot ? [...node.shadowRoot.childNodes, ...node.childNodes] : [...node.childNodes];
    for (const child of children) walk(child, childDepth);
  };
  walk(document.body ?? document.documentElement, 0);
  const scrollHeight = document.documentElement.scrollHeight;
  return {
    url: location.href,
    title: document.title,
    items,
    pixelsAbove: Math.round(window.scrollY),
    pixelsBelow: Math.max(0, Math.round(scrollHeight - window.scrollY - viewportHeight)),
  };
}

/**
 * The core's DOM snapshot script. A basic walker: visible, top-most, interactive elements in
 * the viewport, open shadow roots, stable element ids kept in a per-document weak map.
 * @public
 */
export const domSnapshotScript: PageScript<SnapshotScriptOptions, FrameSnapshot> = {
  id: `plannav.${stateKey}@1`,
  run: runSnapshot,
};
