// The names downloads are saved under and the media type they are reported with. A suggested name is
// the page's or the server's, so untrusted: it never picks a folder, hides a file or breaks a log line.

/** The longest file name most file systems take, in UTF-8 bytes. */
const maxNameBytes = 255;

/** Names Windows keeps for devices, with or without an extension. */
const reservedWindowsName = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

/**
 * A file name safe to create in a folder, from one a page or server suggested: one path segment
 * (separators become `_`), no control characters, no `..`, not hidden (no leading `.`), none of the
 * characters Windows refuses, no reserved device name, at most 255 UTF-8 bytes with its extension
 * kept; `fallback` when nothing is left.
 */
export function safeFileName(suggested: string, fallback = 'download'): string {
  let name = suggested
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '_')
    .replace(/[/\\]/g, '_')
    .replace(/[<>:"|?*]/g, '_')
    .replace(/\.{2,}/g, '.')
    .trim()
    .replace(/^[.\s_]+/, '')
    // Windows drops trailing dots and spaces, which would make two names one.
    .replace(/[.\s]+$/, '');
  if (reservedWindowsName.test(name)) name = `_${name}`;
  if (name === '' || /^_+$/.test(name)) name = fallback;
  return fitBytes(name, maxNameBytes);
}

/** `name` cut to `limit` UTF-8 bytes, keeping its extension (when short) and never splitting a character. */
function fitBytes(name: string, limit: number): string {
  if (byteLength(name) <= limit) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  let stem = name.slice(0, name.length - extension.length);
  // By code point, so no character is split (a combined emoji may lose a part: the name stays valid).
  while (stem.length > 0 && byteLength(stem) + byteLength(extension) > limit) stem = Array.from(stem).slice(0, -1).join('');
  return `${stem.replace(/[.\s]+$/, '') || 'download'}${extension}`;
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The `attempt`th candidate for a name already taken: `report.csv`, `report (1).csv`,
 * `report (2).csv`, … (kept within the byte limit).
 */
export function numberedName(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const suffix = ` (${attempt})`;
  return `${fitBytes(stem, maxNameBytes - byteLength(suffix) - byteLength(extension))}${suffix}${extension}`;
}

/** Media types by file extension: what a download is reported as (CDP's download events carry no type). */
const typesByExtension: Readonly<Record<string, string>> = {
  csv: 'text/csv',
  txt: 'text/plain',
  md: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  json: 'application/json',
  ics: 'text/calendar',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
};

/** Types told by a file's first bytes, for a name without a known extension. */
const signatures: readonly { readonly bytes: readonly number[]; readonly type: string }[] = [
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], type: 'application/pdf' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], type: 'application/zip' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], type: 'image/png' },
  { bytes: [0xff, 0xd8, 0xff], type: 'image/jpeg' },
  { bytes: [0x47, 0x49, 0x46, 0x38], type: 'image/gif' },
  { bytes: [0x1f, 0x8b], type: 'application/gzip' },
];

/**
 * A file's media type: by its name's extension, else by its first bytes (`head`), else
 * `application/octet-stream`.
 */
export function mediaTypeOf(name: string, head?: Uint8Array): string {
  const extension = /\.([a-z0-9]{1,8})$/i.exec(name)?.[1]?.toLowerCase();
  const known = extension === undefined ? undefined : typesByExtension[extension];
  if (known) return known;
  const signed = head && signatures.find((signature) => signature.bytes.every((byte, position) => head[position] === byte));
  return signed ? signed.type : 'application/octet-stream';
}
