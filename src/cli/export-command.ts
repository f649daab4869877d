// `plannav export <history.json> --playwright`: a saved run as a Playwright test script, on stdout
// or in the --out file. Nothing runs: the script is written from the history alone.

import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { booleanFlag, parseFlags, stringFlag } from './args';
import { helpText } from './help';
import { exitCodes, UsageError, writeLine, type CliIo } from './io';

/** `plannav export`. */
export async function exportCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('export', args, { playwright: { type: 'boolean' }, out: { type: 'string' } });
  if (values.help) {
    writeLine(io.stdout, helpText.export);
    return exitCodes.ok;
  }
  const [historyFile, ...rest] = positionals;
  if (!historyFile) throw new UsageError('export needs a history file: plannav export <history.json> --playwright');
  if (rest.length > 0) throw new UsageError(`export takes one history file, got ${positionals.length} arguments`);
  if (!booleanFlag(values, 'playwright')) throw new UsageError('export needs a format: --playwright (a Playwright test script)');
  const [{ exportPlaywrightScript }, { loadHistory }] = await Promise.all([import('../index'), import('../node/index')]);
  const script = exportPlaywrightScript(await loadHistory(historyFile));
  const out = stringFlag(values, 'out');
  if (out) {
    await writeFile(resolve(out), script);
    writeLine(io.stderr, `Wrote ${resolve(out)}`);
  } else {
    io.stdout.write(script.endsWith('\n') ? script : `${script}\n`);
  }
  return exitCodes.ok;
}
