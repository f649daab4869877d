// `plannav report <history.json>`: a saved run's GIF and HTML report, written beside the history
// or in --out. The history file itself is left as it is.

import { dirname, resolve } from 'node:path';
import { parseFlags, stringFlag } from './args';
import { helpText } from './help';
import { exitCodes, UsageError, writeLine, type CliIo } from './io';

/** `plannav report`. */
export async function reportCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('report', args, { out: { type: 'string' } });
  if (values.help) {
    writeLine(io.stdout, helpText.report);
    return exitCodes.ok;
  }
  const [historyFile, ...rest] = positionals;
  if (!historyFile) throw new UsageError('report needs a history file: plannav report <history.json>');
  if (rest.length > 0) throw new UsageError(`report takes one history file, got ${positionals.length} arguments`);
  const [{ loadHistory }, { saveRunFiles }] = await Promise.all([import('../node/index'), import('../front/index')]);
  const history = await loadHistory(historyFile);
  const outDir = resolve(stringFlag(values, 'out') ?? dirname(resolve(historyFile)));
  const files = await saveRunFiles(history, outDir, { history: false });
  for (const warning of files.warnings) writeLine(io.stderr, `plannav: ${warning}`);
  if (files.gifFile) writeLine(io.stdout, `gif     ${files.gifFile}`);
  if (files.reportFile) writeLine(io.stdout, `report  ${files.reportFile}`);
  return files.reportFile || files.gifFile ? exitCodes.ok : exitCodes.failed;
}
