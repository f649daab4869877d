// Embedding the loop in a product: stream events to a UI, pause and resume, answer the agent's
// questions, and ask a follow-up in the same session.

import { Executor, type BrowserDriver, type LLMClient } from 'plannav';

export async function runWithLiveUi(
  llm: LLMClient,
  browser: BrowserDriver,
  ui: { show(line: string): void; ask(question: string): Promise<string> },
): Promise<void> {
  const controller = new AbortController();
  const executor = new Executor({ task: 'Find the opening hours of the city library', llm, browser, signal: controller.signal, maxSteps: 30 });

  // An event listener's promise is not awaited by anyone: a UI that fails to ask ends the run.
  executor.on('human-question', ({ questionId, question }) => {
    ui.ask(question).then(
      (answer) => executor.respond(answer, questionId),
      (error: unknown) => controller.abort(error),
    );
  });

  const streaming = (async () => {
    for await (const event of executor.events()) {
      if (event.type === 'action-end') ui.show(`${event.action}: ${event.error?.message ?? event.result ?? ''}`);
      if (event.type === 'plan-end') ui.show(`plan: ${event.plan.nextSteps}`);
      if (event.type === 'model-call-end') ui.show(`tokens: ${event.usage.totalTokens}`);
    }
  })();

  const first = await executor.execute();
  await streaming;
  ui.show(`${first.status}: ${first.finalAnswer ?? first.error?.message}`);

  executor.addFollowUpTask('And on Sundays?');
  const second = await executor.execute();
  ui.show(`${second.status}: ${second.finalAnswer ?? second.error?.message}`);
}
