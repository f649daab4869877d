// The running processes as Linux's /proc shows them, for the tests that look for a browser's processes.
import { readdirSync, readFileSync } from 'node:fs';

/** Each running process's `/proc/<pid>/<file>`, as its pid and text; a process that ends meanwhile is left out. */
export function* procFiles(file: 'stat' | 'cmdline'): Generator<readonly [pid: number, text: string]> {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/${file}`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    yield [Number(entry), text];
  }
}
