// Reads a zip file's entries (the central directory, stored and deflated entries), for the Playwright-trace test
// (test/e2e/playwright-trace.test.ts): what trace.zip holds is checked from its bytes, not from its name.
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  /** The entry's bytes, uncompressed. */
  readonly data: Buffer;
}

/**
 * The entries of a zip archive.
 * @throws when `zip` is not one (no end-of-central-directory record, a bad signature, an unknown compression).
 */
export function readZip(zip: Buffer): ZipEntry[] {
  let end = -1;
  // The end record is 22 bytes plus a comment of at most 65535.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip: no end-of-central-directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`not a zip: bad central directory entry ${index}`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(localOffset) !== 0x04034b50) throw new Error(`not a zip: bad local header of ${name}`);
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name}: compression method ${method} is not read here`);
    entries.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
