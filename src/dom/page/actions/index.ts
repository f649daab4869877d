// The page side of the built-in actions, as runtime methods the core calls by name
// (`callRuntime(driver, frameId, 'clickTarget', …)`). Only the table: each method lives in its action's module.

import { clickTarget } from './click';
import { awaitStableBox, clickLanding, watchClick } from './click-landing';
import { readDropdown, selectNative } from './dropdown';
import { textEvidence } from './evidence';
import { extractHtml } from './extract-html';
import { hasFocus } from './focus';
import { fieldValue, inspectField } from './input';
import { canGoBack } from './navigation';
import { nextLinks } from './next-links';
import { pageText } from './page-text';
import { awaitReaction, watchTyping } from './reaction';
import { scrollFrameIntoView, scrollTarget } from './scroll';
import { fileNames, findFileInput } from './upload';
import { textShown } from './wait-text';

/** The action methods of the page runtime, by name. */
export const actionMethods = {
  clickTarget,
  watchClick,
  clickLanding,
  awaitStableBox,
  inspectField,
  fieldValue,
  watchTyping,
  awaitReaction,
  readDropdown,
  selectNative,
  scrollTarget,
  scrollFrameIntoView,
  pageText,
  textEvidence,
  extractHtml,
  findFileInput,
  fileNames,
  canGoBack,
  hasFocus,
  nextLinks,
  textShown,
};
