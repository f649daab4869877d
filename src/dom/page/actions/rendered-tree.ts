// The tree as the page renders it, for the actions that read a page's text or climb to what
// scrolls: shadow roots (open, and closed ones the recorder saw) and what slots show. Reads only.

import { shadowRootOf } from '../recorder';

/** The nodes rendered as the node's children: its shadow tree, what a slot shows, or its own children. */
export function renderedChildren(node: Node): ArrayLike<Node> {
  if (node instanceof HTMLSlotElement) {
    const assigned = node.assignedNodes({ flatten: true });
    return assigned.length > 0 ? assigned : node.childNodes;
  }
  if (node instanceof Element) {
    const shadow = shadowRootOf(node);
    if (shadow) return shadow.childNodes;
  }
  return node.childNodes;
}

/** The node's parent in the rendered tree: a slotted element's slot, a shadow root's host. */
export function renderedParent(node: Node): Element | null {
  if (node instanceof Element && node.assignedSlot) return node.assignedSlot;
  if (node.parentElement) return node.parentElement;
  const root = node.parentNode;
  return root instanceof ShadowRoot ? root.host : null;
}

/**
 * Every element of the document and of the shadow trees inside it, tree by tree. Bounded: at most
 * `maxRoots` trees and `maxPerRoot` elements in each.
 */
export function allElements(maxRoots: number, maxPerRoot: number): Element[] {
  const found: Element[] = [];
  const roots: (Document | ShadowRoot)[] = [document];
  for (let position = 0; position < roots.length && position < maxRoots; position++) {
    const all = (roots[position] as Document | ShadowRoot).querySelectorAll('*');
    for (let index = 0; index < all.length && index < maxPerRoot; index++) {
      const element = all[index] as Element;
      found.push(element);
      const shadow = shadowRootOf(element);
      if (shadow) roots.push(shadow);
    }
  }
  return found;
}
