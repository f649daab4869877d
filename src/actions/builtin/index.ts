// The built-in actions, in the order the model reads them: finish, navigate, act on elements,
// tabs, scroll, read the page, remember, ask.

import type { z } from 'zod';
import type { Action } from '../types';
import { askHumanAction } from './ask-human';
import { cacheContentAction } from './cache-content';
import { clickElementAction } from './click-element';
import { doneAction } from './done';
import { getDropdownOptionsAction, selectDropdownOptionAction } from './dropdown';
import { extractContentAction } from './extract-content';
import { inputTextAction } from './input-text';
import { goBackAction, goToUrlAction, searchAction } from './navigation';
import { nextPageAction, previousPageAction, scrollToBottomAction, scrollToPercentAction, scrollToTextAction, scrollToTopAction } from './scroll';
import { searchPageAction } from './search-page';
import { sendKeysAction } from './send-keys';
import { closeTabAction, openTabAction, switchTabAction } from './tabs';
import { uploadFileAction } from './upload-file';
import { waitAction } from './wait';
import { savePdfAction } from './save-pdf';

/** Every built-in action; `outputSchema` shapes the `done` action's `data`. */
export function builtinActions(outputSchema?: z.ZodType): Action[] {
  return [
    doneAction(outputSchema),
    searchAction,
    goToUrlAction,
    goBackAction,
    waitAction,
    clickElementAction,
    inputTextAction,
    sendKeysAction,
    switchTabAction,
    openTabAction,
    closeTabAction,
    scrollToPercentAction,
    scrollToTopAction,
    scrollToBottomAction,
    previousPageAction,
    nextPageAction,
    scrollToTextAction,
    getDropdownOptionsAction,
    selectDropdownOptionAction,
    uploadFileAction,
    extractContentAction(),
    savePdfAction,
    searchPageAction,
    cacheContentAction,
    askHumanAction,
  ] as Action[];
}
