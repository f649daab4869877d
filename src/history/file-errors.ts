// The typed errors of a history file that cannot be read (missing, a folder without a journal, no
// permission, not JSON), each naming the path and what to do. Pure: it reads the `code` Node puts
// on file-system errors and imports no `node:` module, so the core can hold it.

import { HistoryFormatError } from '../errors';

/** Where the history was looked for, when that is not the path the user gave. */
export interface HistoryFileErrorOptions {
  /** The folder the user gave, when the journal.jsonl inside it was read. */
  readonly folder?: string | undefined;
}

const sources = 'the .json file saveHistory wrote, or the journal (its .jsonl file or its folder) recordRun wrote';

/** The `code` of a Node file-system error (`ENOENT`, `EACCES`), if it has one. */
function systemCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The error for a history whose file could not be opened or read at `path`: what was wrong with
 * it and what to do, with the file-system error as its `cause` (its `code` says which, such as `ENOENT`).
 */
export function historyFileError(path: string, error: unknown, options: HistoryFileErrorOptions = {}): HistoryFormatError {
  const code = systemCode(error);
  const tag = code ? ` (${code})` : '';
  let message: string;
  if (code === 'ENOENT' && options.folder !== undefined) {
    message = `${options.folder} is a folder without a journal.jsonl, so it holds no history${tag}. Give the .json file saveHistory wrote, or the folder recordRun wrote its journal to.`;
  } else if (code === 'ENOENT') {
    message = `There is no history at ${path}${tag}. Check the path: give ${sources}.`;
  } else if (code === 'EACCES' || code === 'EPERM') {
    message = `The history at ${path} cannot be read: permission denied${tag}. Let the process read it, or copy it somewhere it can.`;
  } else if (code === 'ENOTDIR') {
    message = `The history at ${path} cannot be read: a part of its path is a file, not a folder${tag}. Check the path.`;
  } else if (code === 'EISDIR') {
    message = `${path} is a folder, not a history file${tag}. Give ${sources}.`;
  } else {
    message = `The history at ${path} cannot be read: ${error instanceof Error ? error.message : String(error)}.`;
  }
  return new HistoryFormatError(message, { cause: error });
}

/** The error for a history file at `path` whose text is not JSON; `error` is JSON.parse's. */
export function historyNotJsonError(path: string, error: unknown): HistoryFormatError {
  const reason = error instanceof Error ? error.message : String(error);
  return new HistoryFormatError(
    `${path} is not JSON (${reason}), so not a history: give the .json file saveHistory wrote. A file cut short (a full disk, a copy that stopped) reads so too.`,
    { cause: error },
  );
}
