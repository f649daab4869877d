// Finds import cycles between the folders of src/: two layers that import each other cannot be
// told apart as upper and lower, and the next change to either drags the other along.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = resolve(__dirname);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The modules every layer may use; they count as one layer (errors.ts uses util's leaf describe-thrown, util's abort.ts uses errors). */
const base = new Set(['errors', 'events', 'util']);

/** The folder of src/ a file belongs to: `actions` for src/actions/builtin/click-element.ts, the file's name for src/index.ts. */
function layerOf(path: string): string {
  const [first = '', ...rest] = relative(source, path).split(sep);
  const layer = rest.length > 0 ? first : first.replace(/\.ts$/, '');
  return base.has(layer) ? 'base' : layer;
}

/** Every edge `from → to` between two folders, with one import that makes it. */
function layerEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(source)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'(\.[^']+)'/gm)) {
      const target = resolve(dirname(file), match[1] as string);
      const from = layerOf(file);
      const to = layerOf(target);
      // The base's own few edges (events → llm for the usage type) are listed, one by one, in
      // test/package/layers.test.ts; every other layer may import it.
      if (from === to || from === 'base') continue;
      const targets = edges.get(from) ?? new Map<string, string>();
      edges.set(from, targets);
      if (!targets.has(to)) targets.set(to, `${relative(source, file)} imports ${match[1]}`);
    }
  }
  return edges;
}

describe('imports between the folders of src/', () => {
  it('form no cycle of two folders', () => {
    const edges = layerEdges();
    const cycles: string[] = [];
    for (const [from, targets] of edges) {
      for (const [to, because] of targets) {
        const back = edges.get(to)?.get(from);
        if (back && from < to) cycles.push(`${from} ↔ ${to}: ${because}; ${back}`);
      }
    }
    expect(cycles).toEqual([]);
  });
});
