// `plannav replay <history.json>`: a saved run again, action by action, without a model (unless
// --on-failure ask-model); with --demo, on a demo shop served anew, its recorded origin mapped.

import type { ReplayResult } from '../index';
import { booleanFlag, choiceFlag, parseFlags, stringFlag, variablesFlag, type FlagSpec } from './args';
import { followEvents, ndjsonLine } from './events';
import { helpText } from './help';
import { exitCodes, fancyOutput, UsageError, writeLine, type CliIo } from './io';
import { describeEvent, painter } from './progress';
import { formatSummary, summaryRecord, type RunSummary } from './summary';

const replayFlags: FlagSpec = {
  var: { type: 'string', multiple: true },
  'on-failure': { type: 'string' },
  model: { type: 'string' },
  headed: { type: 'boolean' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
};

/** The summary of a replay. */
export function replaySummary(result: ReplayResult, historyFile: string): RunSummary {
  const replayed = result.steps.filter((step) => step.status !== 'skipped').length;
  return {
    status: result.status,
    success: result.status === 'ok',
    finalAnswer: result.finalAnswer ?? result.recordedFinalAnswer,
    error: result.error?.message,
    steps: replayed,
    modelCalls: result.modelCalls,
    usage: result.usage,
    durationMs: result.durationMs,
    files: { history: historyFile },
  };
}

/** `plannav replay`. */
export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('replay', args, replayFlags);
  if (values.help) {
    writeLine(io.stdout, helpText.replay);
    return exitCodes.ok;
  }
  const [historyFile, ...rest] = positionals;
  if (!historyFile) throw new UsageError('replay needs a history file: plannav replay <history.json>');
  if (rest.length > 0) throw new UsageError(`replay takes one history file, got ${positionals.length} arguments`);
  const onFailure = choiceFlag(values, 'on-failure', ['stop', 'skip', 'ask-model'] as const, 'replay');
  const model = stringFlag(values, 'model');
  if (onFailure === 'ask-model' && !model) throw new UsageError('--on-failure ask-model needs --model provider:model');
  if (model && onFailure !== 'ask-model') throw new UsageError('--model is only for --on-failure ask-model (a replay needs no model)');
  const variables = variablesFlag(values, 'var', 'replay');
  const json = booleanFlag(values, 'json');
  const demo = booleanFlag(values, 'demo');

  const [{ loadHistory }, { openReplaySession }] = await Promise.all([import('../node/index'), import('../front/index')]);
  const history = await loadHistory(historyFile);
  const session = await openReplaySession({ demo, model, headed: booleanFlag(values, 'headed') || undefined, env: io.env }, io.signal);
  const paint = painter(!json && fancyOutput(io.stdout, io.env));
  const human = json ? io.stderr : io.stdout;
  try {
    // With --demo the shop runs on a new port: the session moves the recorded shop's origin to it.
    const replay = session.replay(history, {
      ...(variables ? { variables } : {}),
      ...(onFailure ? { onStepFailure: onFailure } : {}),
      signal: io.signal,
    });
    followEvents(replay, (event) => {
      if (json) io.stdout.write(ndjsonLine(event));
      // A replay's action-end and its replay-step say the same: the report, with how the element was found, is shown.
      else if (event.type !== 'action-end') {
        const line = describeEvent(event, paint);
        if (line !== undefined) writeLine(human, line);
      }
    });
    const result = await replay.run();
    const summary = replaySummary(result, historyFile);
    if (json) io.stdout.write(ndjsonLine(summaryRecord(summary)));
    else writeLine(io.stdout, `\n${formatSummary(summary, paint)}`);
    if (result.status === 'cancelled') return exitCodes.cancelled;
    return result.status === 'ok' ? exitCodes.ok : exitCodes.failed;
  } finally {
    await session.close();
  }
}
