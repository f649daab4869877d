// The `upload_file` action: sets files on the file input nearest the element, only from the paths
// the host allowed. Paths are checked purely as text (no file system access in the core).

import { z } from 'zod';
import type { FileInputAnswer, FileNamesAnswer } from '../../dom/page/actions/upload';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';
import { elementArgument, quoted, runElementScript, staleAnswerSchema, staleElementError } from './element-script';

/** Validates the file input the page found for an element (the page controls the JSON it sends back). */
export const fileInputAnswerSchema: z.ZodType<FileInputAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('none'), description: z.string().max(500) }),
  z.object({
    status: z.literal('ok'),
    targetId: z.string().max(200).nullable(),
    via: z.enum(['self', 'label', 'inside', 'ancestor']),
    multiple: z.boolean(),
    accept: z.string().max(1000),
    description: z.string().max(500),
  }),
]);

/** Validates the names of the files the page says an input holds. */
export const fileNamesAnswerSchema: z.ZodType<FileNamesAnswer> = z.discriminatedUnion('status', [
  staleAnswerSchema,
  z.object({ status: z.literal('ok'), names: z.array(z.string().max(1000)).max(1000) }),
]);

/** An absolute path, with `.` and `..` collapsed, and the key it is compared by. */
export type NormalisedPath =
  { readonly ok: true; readonly path: string; readonly windows: boolean; readonly key: string } | { readonly ok: false; readonly reason: string };

/**
 * Normalises an absolute path as text: collapses `.`, `..` and repeated separators; refuses
 * relative paths, `..` above the root, control characters (NUL included), URLs and Windows device
 * paths (`\\?\`, `\\.\`). Windows paths (`C:\…`, `\\server\share\…`) get backslashes and a
 * lower-case comparison key, since Windows file names ignore case; POSIX paths compare exactly.
 *
 * @remarks
 * Symbolic links are not resolved (the core has no file system access): a link inside an allowed
 * folder that points out of it is followed by the browser. Allow only folders whose content you trust.
 */
export function normaliseAbsolutePath(path: string): NormalisedPath {
  // eslint-disable-next-line no-control-regex -- finding control characters is what this test is for
  if (/[\u0000-\u001f\u007f]/.test(path)) return { ok: false, reason: 'it contains a control character' };
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(path)) return { ok: false, reason: 'it is a URL; give a file path' };
  const drive = /^([a-zA-Z]):[\\/]/.exec(path);
  const unc = /^[\\/]{2}([^\\/?.][^\\/]*)[\\/]+([^\\/]+)(?=[\\/]|$)/.exec(path);
  const windows = Boolean(drive) || (Boolean(unc) && path.includes('\\'));
  let root: string;
  let rest: string;
  if (drive) {
    root = `${(drive[1] ?? '').toUpperCase()}:\\`;
    rest = path.slice(3);
  } else if (windows && unc) {
    root = `\\\\${unc[1]}\\${unc[2]}\\`;
    rest = path.slice(unc[0].length);
  } else if (/^[\\/]{2}[?.][\\/]/.test(path)) {
    return { ok: false, reason: 'Windows device paths (\\\\?\\ and \\\\.\\) are not accepted' };
  } else if (path.startsWith('/')) {
    root = '/';
    rest = path;
  } else {
    return { ok: false, reason: 'it is not an absolute path' };
  }
  const segments: string[] = [];
  for (const segment of rest.split(windows ? /[\\/]+/ : /\/+/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { ok: false, reason: 'its ".." goes above the root' };
      segments.pop();
      continue;
    }
    // A colon after the drive names an alternate data stream on Windows.
    if (windows && segment.includes(':')) return { ok: false, reason: 'it contains a colon' };
    segments.push(segment);
  }
  const normalised = root + segments.join(windows ? '\\' : '/');
  return { ok: true, path: normalised, windows, key: windows ? normalised.toLowerCase() : normalised };
}

/**
 * Whether the host allows uploading `path`: it equals an allowed file, or lies below an allowed
 * folder (`/uploads` allows `/uploads/a.pdf` but not `/uploads-old/a.pdf`). Returns the normalised
 * path to send, so the browser reads exactly the file that was checked.
 */
export function checkUploadPath(
  path: string,
  allowed: readonly string[],
): { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string } {
  const requested = normaliseAbsolutePath(path.trim());
  if (!requested.ok) return requested;
  for (const entry of allowed) {
    const root = normaliseAbsolutePath(entry.trim());
    if (!root.ok || root.windows !== requested.windows) continue;
    const separator = root.windows ? '\\' : '/';
    const prefix = root.key.endsWith(separator) ? root.key : root.key + separator;
    if (requested.key === root.key || requested.key.startsWith(prefix)) return { ok: true, path: requested.path };
  }
  return { ok: false, reason: 'it is not one of the files the host allowed, nor inside an allowed folder' };
}

/** The last segment of a path. */
function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** Whether a file name fits an `accept` attribute by extension (MIME types other than wildcards are not checked). */
function accepted(name: string, accept: string): boolean {
  const rules = accept
    .split(',')
    .map((rule) => rule.trim().toLowerCase())
    .filter(Boolean);
  if (rules.length === 0) return true;
  const lower = name.toLowerCase();
  const extensions = rules.filter((rule) => rule.startsWith('.'));
  // MIME rules (image/*, application/pdf) cannot be checked by name alone: trust them.
  if (extensions.length < rules.length) return true;
  return extensions.some((extension) => lower.endsWith(extension));
}

/** Sets files on a file input. */
export const uploadFileAction = defineAction({
  name: 'upload_file',
  description:
    'Upload a file: set it on the file input of an element (the input itself, its label, or the upload button or area around it). Only files the user allowed can be uploaded.',
  schema: z.object({
    index: z.number().int().nonnegative().describe('The index of the file input, or of the upload button or area that holds it'),
    path: z
      .union([z.string().min(1).max(4096), z.array(z.string().min(1).max(4096)).min(1).max(20)])
      .describe('The absolute path of the file, or several for an input that takes multiple files'),
  }),
  handler: async ({ index, path }, context) => {
    const action = 'upload_file';
    const requested = Array.isArray(path) ? path : [path];
    if (context.uploadPaths.length === 0) {
      throw new ActionError(action, 'Uploading files is not allowed in this task: no file was made available. Ask the user, or do without the upload.');
    }
    const allowedList = context.uploadPaths.slice(0, 20).join(', ') + (context.uploadPaths.length > 20 ? ', …' : '');
    const paths: string[] = [];
    for (const candidate of requested) {
      const verdict = checkUploadPath(candidate, context.uploadPaths);
      if (!verdict.ok) throw new ActionError(action, `Cannot upload ${JSON.stringify(candidate)}: ${verdict.reason}. Files allowed: ${allowedList}.`);
      paths.push(verdict.path);
    }
    const ref = context.element(index);
    const input = await runElementScript(context, ref.frameId, 'findFileInput', elementArgument(ref), fileInputAnswerSchema);
    if (input.status === 'stale') throw staleElementError(action, ref, input.reason);
    if (input.status === 'none') {
      throw new ActionError(
        action,
        `Element ${index} (${input.description}) is no file input and has none inside or around it. Choose the upload field or its button.`,
      );
    }
    if (paths.length > 1 && !input.multiple) {
      throw new ActionError(action, `The file input of element ${index} takes one file; upload one path.`);
    }
    const target = input.targetId ? { ...ref, elementId: input.targetId, tagName: 'input' } : ref;
    await context.driver.uploadFiles(target, paths, { signal: context.signal });
    const files = await runElementScript(context, target.frameId, 'fileNames', elementArgument(target), fileNamesAnswerSchema);
    const names = files.status === 'ok' ? files.names : paths.map(fileName);
    const where = input.via === 'self' ? `element ${index}` : `the file input of element ${index} (${input.description})`;
    const refused = paths.map(fileName).filter((name) => !accepted(name, input.accept));
    const warning = refused.length > 0 ? ` Note: the input accepts ${quoted(input.accept)}; the page may refuse ${refused.join(', ')}.` : '';
    const set = names.length > 0 ? names.map((name) => JSON.stringify(name)).join(', ') : 'nothing (the page cleared the input)';
    return { extractedContent: `Set ${names.length === 1 ? 'file' : 'files'} ${set} on ${where}.${warning}`, includeInMemory: true };
  },
});
