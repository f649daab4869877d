// The dialog watch both Chromium drivers share: a dialog stays open until answered or its window
// passes, its window can be moved by a reader, what closed is reported once, and a call racing a
// dialog ends when one opens.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DialogWatch, dialogOpenError, type LibraryDialog } from './dialogs';

function libraryDialog(type: string, message: string, defaultValue = ''): LibraryDialog & { answers: string[] } {
  const answers: string[] = [];
  return {
    answers,
    type: () => type,
    message: () => message,
    defaultValue: () => defaultValue,
    accept: async (text) => void answers.push(`accept:${text ?? ''}`),
    dismiss: async () => void answers.push('dismiss'),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DialogWatch', () => {
  it('keeps a dialog open until it is answered, then reports it closed once', async () => {
    const watch = new DialogWatch<string>();
    const dialog = libraryDialog('prompt', 'New name?', 'Untitled');
    watch.opened('tab', dialog);
    expect(watch.openOn('tab')).toEqual({ type: 'prompt', message: 'New name?', defaultValue: 'Untitled' });
    expect(watch.openOn('other')).toBeUndefined();
    const closed = await watch.answer('tab', { accept: true, text: 'Report' });
    expect(closed).toEqual({ type: 'prompt', message: 'New name?', defaultValue: 'Untitled', accepted: true, text: 'Report', answeredBy: 'request' });
    expect(dialog.answers).toEqual(['accept:Report']);
    expect(watch.openOn('tab')).toBeUndefined();
    expect(watch.takeClosed()).toEqual([closed]);
    expect(watch.takeClosed()).toEqual([]);
    await expect(watch.answer('tab', { accept: false })).rejects.toThrow(/No dialog is open/);
    watch.dispose();
  });

  it('dismisses a dialog nobody answers when its window passes; a reader may move the window', async () => {
    vi.useFakeTimers();
    const watch = new DialogWatch<string>();
    watch.answerWithinMs = 10_000;
    const dialog = libraryDialog('confirm', 'Delete item 7?');
    watch.opened('tab', dialog);
    watch.setWindow('tab', 3000);
    await vi.advanceTimersByTimeAsync(2999);
    expect(watch.openOn('tab')).toBeDefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(watch.openOn('tab')).toBeUndefined();
    expect(dialog.answers).toEqual(['dismiss']);
    expect(watch.takeClosed()).toEqual([{ type: 'confirm', message: 'Delete item 7?', accepted: false, answeredBy: 'timeout' }]);
    watch.dispose();
  });

  it('ends a call racing a dialog when the dialog opens, and lets a call that ends first through', async () => {
    const watch = new DialogWatch<string>();
    let release: () => void = () => undefined;
    const stuck = new Promise<string>((resolve) => (release = () => resolve('late')));
    const racing = watch.until(
      'tab',
      () => stuck,
      (dialog) => `dialog:${dialog.message}`,
    );
    watch.opened('tab', libraryDialog('alert', 'Saved!'));
    expect(await racing).toBe('dialog:Saved!');
    release();
    expect(
      await watch.until(
        'tab',
        async () => 'done',
        () => 'dialog',
      ),
    ).toBe('done');
    await expect(
      watch.until(
        'tab',
        async () => Promise.reject(new Error('failed')),
        () => 'dialog',
      ),
    ).rejects.toThrow('failed');
    watch.dispose();
  });

  it('takes an unknown kind of dialog for an alert, cuts a long message, and names the dialog in its error', () => {
    const watch = new DialogWatch<string>();
    watch.opened('tab', libraryDialog('something-new', 'x'.repeat(5000)));
    const open = watch.openOn('tab');
    expect(open?.type).toBe('alert');
    expect(open?.message).toHaveLength(2000);
    const error = dialogOpenError({ type: 'confirm', message: 'Sure?' });
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      'A confirm dialog is open in the tab ("Sure?"): the page runs no script until it is answered. Answer it with handle_dialog (accept or dismiss) first.',
    );
    watch.dispose();
  });
});
