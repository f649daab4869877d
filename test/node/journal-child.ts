// A run that records its journal and reports each finished step on stdout, for the test that
// kills this process in the middle of the run (journal.test.ts). argv[2]: the journal folder.

import { Executor } from '../../src/index';
import { recordRun } from '../../src/node/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { clickAction, indexOf, shopBrowser } from '../helpers/loop';

const dir = process.argv[2];
if (!dir) throw new Error('usage: journal-child.ts <dir>');
// A Navigator that never finishes: it goes back and forth between two pages until killed.
const llm = new ScriptedLLM({
  latencyMs: 20,
  respond: (request) => {
    if (request.agent === 'planner') return scriptedPlan({ nextSteps: 'Keep looking' });
    const target = indexOf(request.lastUserText, 'Mugs') ?? indexOf(request.lastUserText, 'Add blue mug') ?? 1;
    return scriptedActions([{ click_element: { index: target } }]);
  },
});
const executor = new Executor({
  sensitiveActions: false,
  task: 'Look at mugs for ever',
  llm,
  browser: shopBrowser(),
  actions: [clickAction],
  maxSteps: 500,
  loopDetection: false,
});
recordRun(executor, dir);
let finished = 0;
executor.on('step-end', () => process.stdout.write(`STEP ${++finished}\n`));
await executor.execute();
