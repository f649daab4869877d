// What ARIA says about lists that pop up from a field or a button: the roles of a list and of
// its options, and the elements a holder names as its list. Runs in the page; reads only.

import { elementByIdNear } from './naming';

/** Elements that are a list of options. */
export const popupSelector = '[role=listbox],[role=menu],[role=tree],[role=grid]';
/** The options of such a list. */
export const optionSelector = '[role=option],[role=menuitem],[role=menuitemradio],[role=menuitemcheckbox],[role=treeitem]';

/** The elements `aria-controls` and `aria-owns` of the holder name (at most ten each) that exist. */
export function controlledElements(holder: Element): Element[] {
  const found: Element[] = [];
  for (const name of ['aria-controls', 'aria-owns']) {
    for (const id of (holder.getAttribute(name) ?? '').split(/\s+/).filter(Boolean).slice(0, 10)) {
      const target = elementByIdNear(holder, id);
      if (target) found.push(target);
    }
  }
  return found;
}
