// The JavaScript dialogs of a Chromium driver's tabs, written once for both libraries: a dialog stays
// open for the model to answer (handle_dialog), within a bound, and what every dialog said and how it
// was answered is kept until reported. It must never touch the page: a page with a dialog runs no script.

import type { ClosedDialog, DialogAnswer, PageDialog } from '../browser/types';
import { BrowserError } from '../errors';

/** A dialog as Playwright and Puppeteer both hand it over. */
export interface LibraryDialog {
  type(): string;
  message(): string;
  defaultValue(): string;
  accept(promptText?: string): Promise<void>;
  dismiss(): Promise<void>;
}

/** The longest message kept of a dialog: page text, shown to the model. */
const maxMessage = 2000;
/** How many closed dialogs are kept until reported; older ones are dropped first. */
const maxClosed = 20;

interface OpenDialog {
  readonly dialog: PageDialog;
  answer(answer: DialogAnswer, by: ClosedDialog['answeredBy']): Promise<ClosedDialog>;
  setWindow(windowMs: number): void;
}

/** The kind of a dialog, as the contract names them (a library may add kinds of its own: taken for alerts). */
function dialogType(type: string): PageDialog['type'] {
  return type === 'confirm' || type === 'prompt' || type === 'beforeunload' ? type : 'alert';
}

/** The recoverable error of a call that needs the page while a dialog holds it. */
export function dialogOpenError(dialog: PageDialog): BrowserError {
  return new BrowserError(
    `A ${dialog.type} dialog is open in the tab (${JSON.stringify(dialog.message.slice(0, 200))}): the page runs no script until it is answered. Answer it with handle_dialog (accept or dismiss) first.`,
    { retryable: true },
  );
}

/**
 * The dialogs of one driver's tabs. A transport hands each dialog to `opened`; it stays open until
 * `answer` is called or its window passes (then it is dismissed): `answerWithinMs` from its opening,
 * or the window a reader of the state asks for (`setWindow`, the caller's action timeout).
 */
export class DialogWatch<P> {
  /** Milliseconds a dialog may stay unanswered before the driver dismisses it, unless a reader sets its own window. */
  answerWithinMs = 15_000;
  private readonly openDialogs = new Map<P, OpenDialog>();
  private closed: ClosedDialog[] = [];
  private readonly listeners = new Map<P, Set<(dialog: PageDialog) => void>>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** Takes a dialog a page opened. */
  opened(page: P, library: LibraryDialog): void {
    const type = dialogType(library.type());
    const defaultValue = type === 'prompt' ? library.defaultValue() : '';
    const dialog: PageDialog = { type, message: library.message().slice(0, maxMessage), ...(defaultValue ? { defaultValue } : {}) };
    const openedAt = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let answered: Promise<ClosedDialog> | undefined;
    const answer = (reply: DialogAnswer, by: ClosedDialog['answeredBy']): Promise<ClosedDialog> => {
      answered ??= (async () => {
        this.stopTimer(timer);
        if (this.openDialogs.get(page)?.dialog === dialog) this.openDialogs.delete(page);
        const text = reply.accept && type === 'prompt' ? (reply.text ?? defaultValue) : undefined;
        // A dialog its page took away (the tab closed, a navigation) cannot be answered: it is closed all the same.
        await (reply.accept ? library.accept(text) : library.dismiss()).catch(() => undefined);
        const closed: ClosedDialog = { ...dialog, accepted: reply.accept, ...(text !== undefined ? { text } : {}), answeredBy: by };
        this.closed = [...this.closed, closed].slice(-maxClosed);
        return closed;
      })();
      return answered;
    };
    const setWindow = (windowMs: number): void => {
      if (answered) return;
      this.stopTimer(timer);
      timer = setTimeout(() => void answer({ accept: false }, 'timeout'), Math.max(0, openedAt + windowMs - Date.now()));
      this.timers.add(timer);
    };
    setWindow(this.answerWithinMs);
    this.openDialogs.set(page, { dialog, answer, setWindow });
    for (const listener of this.listeners.get(page) ?? []) listener(dialog);
  }

  /** Gives the dialog open on `page` `windowMs` from its opening to be answered (longer or shorter than it had). */
  setWindow(page: P | undefined, windowMs: number): void {
    if (page !== undefined) this.openDialogs.get(page)?.setWindow(windowMs);
  }

  /** The dialog open on `page`, if any. */
  openOn(page: P | undefined): PageDialog | undefined {
    return page === undefined ? undefined : this.openDialogs.get(page)?.dialog;
  }

  /**
   * Answers the dialog open on `page`.
   * @throws `BrowserError` when none is open.
   */
  answer(page: P, reply: DialogAnswer, by: ClosedDialog['answeredBy'] = 'request'): Promise<ClosedDialog> {
    const open = this.openDialogs.get(page);
    if (!open) return Promise.reject(new BrowserError('No dialog is open in the active tab: there is nothing to answer. Read the page again.'));
    return open.answer(reply, by);
  }

  /** The dialogs closed since the last call, oldest first; each is reported once. */
  takeClosed(): ClosedDialog[] {
    const closed = this.closed;
    this.closed = [];
    return closed;
  }

  /** Calls `listener` when a dialog opens on `page`; returns the function that stops listening. */
  onOpen(page: P, listener: (dialog: PageDialog) => void): () => void {
    const set = this.listeners.get(page) ?? new Set();
    set.add(listener);
    this.listeners.set(page, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(page);
    };
  }

  /**
   * Runs `call`, which acts on `page`; when a dialog opens before it ends, resolves with `onDialog()`
   * instead (the call waits on the dialog, and its own end is dropped).
   */
  async until<T>(page: P, call: () => Promise<T>, onDialog: (dialog: PageDialog) => T): Promise<T> {
    let stop: (() => void) | undefined;
    const opened = new Promise<PageDialog>((resolve) => (stop = this.onOpen(page, resolve)));
    const running = call();
    try {
      const winner = await Promise.race([running.then((value) => ({ value })), opened.then((dialog) => ({ dialog }))]);
      if ('dialog' in winner) {
        running.catch(() => undefined);
        return onDialog(winner.dialog);
      }
      return winner.value;
    } finally {
      stop?.();
    }
  }

  private stopTimer(timer: ReturnType<typeof setTimeout> | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /** Stops every timer; open dialogs are left to the browser (closing it closes them). */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.openDialogs.clear();
    this.listeners.clear();
  }
}
