import { describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../errors';
import { historyFileError, historyNotJsonError } from './file-errors';

/** A file-system error as Node makes it: an Error with a `code`. */
function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('historyFileError', () => {
  it.each([
    [
      'ENOENT',
      {},
      'There is no history at runs/a.json (ENOENT). Check the path: give the .json file saveHistory wrote, or the journal (its .jsonl file or its folder) recordRun wrote.',
    ],
    [
      'ENOENT',
      { folder: 'runs/today' },
      'runs/today is a folder without a journal.jsonl, so it holds no history (ENOENT). Give the .json file saveHistory wrote, or the folder recordRun wrote its journal to.',
    ],
    ['EACCES', {}, 'The history at runs/a.json cannot be read: permission denied (EACCES). Let the process read it, or copy it somewhere it can.'],
    ['EPERM', {}, 'The history at runs/a.json cannot be read: permission denied (EPERM). Let the process read it, or copy it somewhere it can.'],
    ['ENOTDIR', {}, 'The history at runs/a.json cannot be read: a part of its path is a file, not a folder (ENOTDIR). Check the path.'],
    [
      'EISDIR',
      {},
      'runs/a.json is a folder, not a history file (EISDIR). Give the .json file saveHistory wrote, or the journal (its .jsonl file or its folder) recordRun wrote.',
    ],
  ])('says what %s means and what to do', (code, options, message) => {
    const cause = systemError(code, `${code}: something, open 'runs/a.json'`);
    const error = historyFileError('runs/a.json', cause, options);
    expect(HistoryFormatError.isInstance(error)).toBe(true);
    expect(error.code).toBe('HISTORY_INVALID');
    expect(error.message).toBe(message);
    expect(error.cause).toBe(cause);
  });

  it('passes on the message of an error it does not know', () => {
    expect(historyFileError('runs/a.json', systemError('EIO', 'EIO: i/o error, read')).message).toBe(
      'The history at runs/a.json cannot be read: EIO: i/o error, read.',
    );
  });
});

describe('historyNotJsonError', () => {
  it('names the file, the syntax error and what a history is', () => {
    const cause = new SyntaxError('Unexpected end of JSON input');
    const error = historyNotJsonError('runs/a.json', cause);
    expect(error.message).toBe(
      'runs/a.json is not JSON (Unexpected end of JSON input), so not a history: give the .json file saveHistory wrote. A file cut short (a full disk, a copy that stopped) reads so too.',
    );
    expect(error.cause).toBe(cause);
  });
});
