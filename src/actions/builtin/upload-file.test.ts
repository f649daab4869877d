import { describe, expect, it } from 'vitest';
import { checkUploadPath, normaliseAbsolutePath } from './upload-file';

describe('normaliseAbsolutePath', () => {
  it.each([
    ['/tmp/a.pdf', '/tmp/a.pdf', false],
    ['/tmp//uploads/./a.pdf', '/tmp/uploads/a.pdf', false],
    ['/tmp/uploads/x/../a.pdf', '/tmp/uploads/a.pdf', false],
    ['/tmp/uploads/', '/tmp/uploads', false],
    ['/', '/', false],
    ['/a\\..\\b', '/a\\..\\b', false], // a backslash is a character of a POSIX name
    ['C:\\Users\\Ada\\a.pdf', 'C:\\Users\\Ada\\a.pdf', true],
    ['c:/Users/Ada/./docs/../a.pdf', 'C:\\Users\\Ada\\a.pdf', true],
    ['\\\\server\\share\\docs\\a.pdf', '\\\\server\\share\\docs\\a.pdf', true],
  ])('%j becomes %j', (input, path, windows) => {
    const result = normaliseAbsolutePath(input);
    expect(result).toMatchObject({ ok: true, path, windows });
  });

  it.each([
    ['relative/a.pdf', 'not an absolute path'],
    ['./a.pdf', 'not an absolute path'],
    ['~/a.pdf', 'not an absolute path'],
    ['a.pdf', 'not an absolute path'],
    ['/../etc/passwd', 'goes above the root'],
    ['/tmp/../../etc/passwd', 'goes above the root'],
    ['C:\\..\\Windows', 'goes above the root'],
    ['/tmp/a.pdf\u0000.png', 'control character'],
    ['/tmp/a\nb', 'control character'],
    ['file:///etc/passwd', 'URL'],
    ['\\\\?\\C:\\Windows', 'device paths'],
    ['\\\\.\\pipe\\x', 'device paths'],
    ['C:\\data\\a.txt:secret', 'colon'],
  ])('refuses %j (%s)', (input, reason) => {
    const result = normaliseAbsolutePath(input);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });
});

describe('checkUploadPath', () => {
  const allowed = ['/srv/uploads', '/home/ada/cv.pdf', 'C:\\Users\\Ada\\Documents', 'not/absolute'];

  it.each([
    ['/srv/uploads/a.pdf', '/srv/uploads/a.pdf'],
    ['/srv/uploads/deep/er/b.png', '/srv/uploads/deep/er/b.png'],
    ['/srv/uploads/x/../a.pdf', '/srv/uploads/a.pdf'],
    ['/home/ada/cv.pdf', '/home/ada/cv.pdf'],
    ['/home/ada/./cv.pdf', '/home/ada/cv.pdf'],
    ['C:\\Users\\Ada\\Documents\\cv.pdf', 'C:\\Users\\Ada\\Documents\\cv.pdf'],
    ['c:/users/ada/documents/CV.pdf', 'C:\\users\\ada\\documents\\CV.pdf'], // Windows ignores case
  ])('allows %j as %j', (path, normalised) => {
    expect(checkUploadPath(path, allowed)).toEqual({ ok: true, path: normalised });
  });

  it.each([
    '/srv/uploads-evil/a.pdf', // a prefix of the name is not the folder
    '/srv/uploadsx',
    '/srv/uploads/../secrets.txt', // .. escapes the folder
    '/srv/uploads/a/../../secrets.txt',
    '/home/ada/cv.pdf/../id_rsa',
    '/home/ada/cv.pdf.bak',
    '/home/ada/other.pdf',
    '/SRV/UPLOADS/a.pdf', // POSIX names keep their case
    'C:\\Users\\Ada\\Documents-old\\a.pdf',
    'D:\\Users\\Ada\\Documents\\a.pdf',
    'uploads/a.pdf',
    '/srv/uploads/a.pdf\u0000',
    'not/absolute/a.pdf', // an invalid allowed entry allows nothing
  ])('refuses %j', (path) => {
    expect(checkUploadPath(path, allowed).ok).toBe(false);
  });

  it('allows everything below an allowed root', () => {
    expect(checkUploadPath('/any/file', ['/'])).toEqual({ ok: true, path: '/any/file' });
    expect(checkUploadPath('C:\\any\\file', ['C:\\'])).toEqual({ ok: true, path: 'C:\\any\\file' });
  });

  it('allows nothing when nothing is allowed', () => {
    expect(checkUploadPath('/srv/uploads/a.pdf', []).ok).toBe(false);
  });
});
