// The built-in actions, in the order the model reads them: finish, navigate, wait, act on elements
// (and on dialogs), tabs, scroll, read the page, remember, ask. `evaluate` is not among them: it is
// offered only when the host allows it (`allowEvaluate`).

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
import { clickCoordinatesAction, doubleClickElementAction, dragAndDropAction, hoverElementAction, rightClickElementAction } from './pointer-actions';
import { handleDialogAction } from './handle-dialog';
import { reloadPageAction } from './reload-page';
import { waitForTextAction } from './wait-for-text';
import { waitAction } from './wait';
import { savePdfAction } from './save-pdf';

/** Every built-in action; `outputSchema` shapes the `done` action's `data`. */
export function builtinActions(outputSchema?: z.ZodType): Action[] {
  return [
    doneAction(outputSchema),
    searchAction,
    goToUrlAction,
    goBackAction,
    reloadPageAction,
    waitAction,
    waitForTextAction,
    clickElementAction,
    hoverElementAction,
    doubleClickElementAction,
    rightClickElementAction,
    dragAndDropAction,
    clickCoordinatesAction,
    inputTextAction,
    sendKeysAction,
    handleDialogAction,
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

export { evaluateAction } from './evaluate';
