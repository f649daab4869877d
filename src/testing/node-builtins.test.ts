import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNodeBuiltins, nodeBuiltin } from './node-builtins';

describe('nodeBuiltin', () => {
  it('hands over the module of this Node', async () => {
    expect(hasNodeBuiltins()).toBe(true);
    expect((await nodeBuiltin('node:path'))?.dirname('a/b/c.json')).toBe('a/b');
  });

  it('takes the module from process.getBuiltinModule when there is one', async () => {
    const asked: string[] = [];
    const fake = { dirname: () => 'from getBuiltinModule' };
    const runtime = { versions: { node: '22.12.0' }, getBuiltinModule: (id: string) => (asked.push(id), fake) };
    expect(await nodeBuiltin('node:path', runtime)).toBe(fake);
    expect(asked).toEqual(['node:path']);
  });

  it('imports the module on a Node without process.getBuiltinModule (before 20.16)', async () => {
    const loaded = await nodeBuiltin('node:path', { versions: { node: '20.0.0' } });
    expect(loaded?.basename('cassettes/mugs.json')).toBe('mugs.json');
    expect(loaded?.sep).toBe(sep);
  });

  it('gives nothing where there is no Node (a page, a service worker)', async () => {
    expect(hasNodeBuiltins({})).toBe(false);
    expect(await nodeBuiltin('node:http', {})).toBeUndefined();
    expect(await nodeBuiltin('node:fs/promises', { getBuiltinModule: () => ({}) })).toBeUndefined();
  });
});
