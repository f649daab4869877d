// The task tools: a whole task as one call (run_task: URL policy and secrets narrowed by the
// caller, progress per step, cancel, questions through elicitation, the history saved), and the
// saved runs again: replay_history without a model, export_playwright as a test file.

import { z } from 'zod';
import { outputSchemaFromJson } from '../front/output-schema';
import {
  ConfigError,
  Executor,
  exportPlaywrightScript,
  PlannavError,
  HistoryReplay,
  UrlPolicy,
  type ExecutorOptions,
  type HumanInputHandler,
  type RunHistory,
} from '../index';
import { loadHistory } from '../node/index';
import { narrowSecrets, narrowUrlPolicy } from './narrow';
import type { McpRuntime } from './runtime';
import { defineTool, errorResult, toolError, toolResult, type ToolCall, type ToolSpec } from './tool';

const runTaskInput = z.object({
  task: z.string().min(1).max(20_000).describe('What the agent should do, in plain words.'),
  start_url: z.string().min(1).optional().describe('The page to start on; it must be allowed by the URL policy. Defaults to the demo shop in demo mode.'),
  output_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('A JSON Schema (an object) for the result: the answer comes back as `data` of this shape.'),
  max_steps: z.number().int().min(1).max(500).optional().describe("The most Navigator steps; at most the server's limit."),
  allowed_hosts: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe("Hosts the browser may load during this task (e.g. 'shop.example'); each must be inside the hosts the server allows."),
  secrets: z
    .array(z.string().min(1))
    .optional()
    .describe('Names of the server-configured secrets this task may use (values are never shown); all of them when absent.'),
});

const replayInput = z.object({
  history_file: z.string().min(1).describe('The history_file a run_task result gave (a history.json inside the server history folder).'),
  variables: z.record(z.string(), z.string()).optional().describe('Values for the recorded inputs, by variable name.'),
  on_failure: z.enum(['stop', 'skip']).optional().describe('What a step that cannot be replayed does: stop the replay (default) or skip the step.'),
});

const exportInput = z.object({
  history_file: z.string().min(1).describe('The history_file a run_task result gave (a history.json inside the server history folder).'),
});

/** The human-input handler that asks through MCP elicitation; when that fails, the wait runs out as without one. */
function elicitationHandler(call: ToolCall): HumanInputHandler | undefined {
  const elicit = call.elicit;
  if (!elicit) return undefined;
  return async (question, { signal, timeout }) => {
    try {
      return await elicit(question.question, { signal, timeout });
    } catch {
      if (signal.aborted) return undefined;
      // The client could not answer (a newer protocol era, a transport error): wait out the timeout.
      return new Promise<string | undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    }
  };
}

const navigations = new Set(['go_to_url', 'open_tab', 'search']);

/**
 * The page a recorded run started on, when its first action does not load a page itself (the run
 * began on a start_url): a replay opens it first. Moved to `baseURL`'s origin when one is given.
 */
function startPageOf(history: RunHistory, baseURL: string | undefined): string | undefined {
  const first = history.steps.find((step) => step.actor === 'navigator' && step.actions.length > 0);
  if (!first || navigations.has(first.actions[0]?.name ?? '')) return undefined;
  const url = first.browser?.url;
  if (!url || !/^https?:/.test(url)) return undefined;
  if (baseURL === undefined) return url;
  const recorded = new URL(url);
  return new URL(`${recorded.pathname}${recorded.search}`, baseURL).href;
}

/** The caller's output_schema as zod, with errors that name its field. */
function outputSchemaOf(schema: object): z.ZodType {
  try {
    return outputSchemaFromJson(schema);
  } catch (error) {
    throw new ConfigError(`\`output_schema\`: ${error instanceof Error ? error.message : String(error)}`, { field: 'output_schema', cause: error });
  }
}

function maxStepsOf(base: ExecutorOptions, asked: number | undefined): number | undefined {
  if (asked === undefined) return base.maxSteps;
  return base.maxSteps === undefined ? asked : Math.min(asked, base.maxSteps);
}

/** The task tools of a server over `runtime`. */
export function taskTools(runtime: McpRuntime): ToolSpec[] {
  const runTask = defineTool({
    name: 'run_task',
    description:
      "Run a whole browser task with plannav's Planner and Navigator and return its result: status, answer, typed data (with output_schema), token usage and the saved history file. The server's URL policy and secrets apply; allowed_hosts and secrets can only narrow them. Sends a progress notification per step; cancelling the request cancels the task.",
    input: runTaskInput,
    annotations: { title: 'Run a browser task', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    run: async (args, call) =>
      runtime.exclusive(call.signal, async () => {
        const session = await runtime.session(call.signal);
        // The start page (start_url, else the session's: the demo shop) goes in the task's words, as
        // for `plannav run`, so the agent's own first navigation is in the history a replay or export starts from.
        const startUrl = args.start_url ?? session.startUrl;
        const base = session.executorOptions(args.task);
        let urlPolicy;
        let secrets;
        let outputSchema;
        let task: string;
        try {
          urlPolicy = narrowUrlPolicy(base.urlPolicy, args.allowed_hosts);
          secrets = narrowSecrets(base.secrets, args.secrets);
          outputSchema = args.output_schema === undefined ? base.outputSchema : outputSchemaOf(args.output_schema);
          task = session.taskFor(args.task, startUrl);
        } catch (error) {
          return errorResult(error);
        }
        if (startUrl !== undefined && !args.task.includes(startUrl)) {
          const decision = new UrlPolicy({ allow: urlPolicy?.allow, deny: urlPolicy?.deny }).check(startUrl);
          if (!decision.allowed) return toolError(`start_url ${startUrl} is not allowed: ${decision.reason}.`);
        }
        const humanInput = elicitationHandler(call) ?? base.humanInput;
        const options: ExecutorOptions = {
          ...base,
          task,
          signal: call.signal,
          urlPolicy,
          secrets,
          outputSchema,
          maxSteps: maxStepsOf(base, args.max_steps),
          ...(humanInput ? { humanInput } : {}),
        };
        let executor: Executor;
        try {
          executor = new Executor(options);
        } catch (error) {
          return errorResult(error);
        }
        let steps = 0;
        let plan = '';
        let done: string[] = [];
        executor.on('plan-end', (event) => (plan = event.plan.nextSteps));
        executor.on('action-end', (event) =>
          done.push(`${event.action}${event.error ? ` failed: ${event.error.message}` : event.result ? `: ${event.result}` : ''}`),
        );
        // One notification per Navigator step (the `steps` of the result), saying what it did.
        executor.on('step-end', (event) => {
          if (event.actor !== 'navigator') return;
          steps += 1;
          const did = done.length > 0 ? done.join('; ') : event.error ? `failed: ${event.error.message}` : plan ? `plan: ${plan}` : '';
          void call.progress(steps, `Step ${steps}${did ? `: ${did.slice(0, 300)}` : ''}`, options.maxSteps);
          done = [];
        });
        try {
          const result = await executor.execute();
          const folder = await runtime.runFolder();
          const files = await session.saveRun(executor, folder);
          const structured = {
            status: result.status,
            success: result.success,
            answer: result.finalAnswer ?? null,
            ...(result.data !== undefined ? { data: result.data } : {}),
            usage: result.usage,
            steps: result.steps,
            history_file: files.historyFile,
            ...(files.gifFile ? { gif_file: files.gifFile } : {}),
            ...(files.reportFile ? { report_file: files.reportFile } : {}),
            ...(result.error ? { error: { name: result.error.name, code: result.error.code, message: result.error.message } } : {}),
          };
          const lines = [
            `Task ${result.status}${result.success ? ' (success)' : ''} after ${result.steps} steps.`,
            result.finalAnswer ? `Answer: ${result.finalAnswer}` : undefined,
            result.data !== undefined ? `Data: ${JSON.stringify(result.data)}` : undefined,
            result.error ? `Error: ${result.error.message}` : undefined,
            `Tokens: ${result.usage.totalTokens} (${result.usage.inputTokens} in, ${result.usage.outputTokens} out).`,
            `History: ${files.historyFile}`,
          ].filter((line): line is string => line !== undefined);
          return toolResult(lines.join('\n'), structured);
        } catch (error) {
          return errorResult(error);
        } finally {
          await executor.close();
        }
      }),
  });

  const replay = defineTool({
    name: 'replay_history',
    description:
      'Replay a run that run_task saved, without a model, in a fresh browser: each recorded action again on the live page, found by its recorded element. Returns the status and the failed actions with their reasons.',
    input: replayInput,
    annotations: { title: 'Replay a saved run', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    run: async (args, call) =>
      runtime.exclusive(call.signal, async () => {
        try {
          const file = await runtime.historyPath(args.history_file);
          const history = await loadHistory(file);
          // A replay starts as the run did: in a fresh browser (and, in demo mode, a fresh shop).
          await runtime.closeSession();
          const session = await runtime.session(call.signal);
          const base = session.executorOptions(history.tasks[0]?.task ?? 'replay');
          const baseURL = session.startUrl ? new URL(session.startUrl).origin : undefined;
          const firstPage = startPageOf(history, baseURL);
          if (firstPage !== undefined) {
            const decision = new UrlPolicy({ allow: base.urlPolicy?.allow, deny: base.urlPolicy?.deny }).check(firstPage);
            if (!decision.allowed) return toolError(`The run started on ${firstPage}, which is not allowed: ${decision.reason}.`);
            await session.browser.goto(firstPage, { signal: call.signal });
          }
          const result = await new HistoryReplay(history, {
            browser: session.browser,
            variables: args.variables,
            onStepFailure: args.on_failure ?? 'stop',
            signal: call.signal,
            urlPolicy: base.urlPolicy ? { allow: base.urlPolicy.allow, deny: base.urlPolicy.deny } : undefined,
            secrets: base.secrets,
            ...(baseURL ? { baseURL } : {}),
          }).run();
          const failed = result.steps.filter((step) => step.status === 'failed').length;
          const structured = {
            status: result.status,
            steps: result.steps.length,
            failed_steps: failed,
            failures: result.steps
              .filter((step) => step.status === 'failed')
              .map((step) => ({ step: step.step, action: step.action, reason: step.reason ?? null })),
            answer: result.finalAnswer ?? null,
            ...(result.error ? { error: { name: result.error.name, code: result.error.code, message: result.error.message } } : {}),
          };
          const failures = result.steps
            .filter((step) => step.status === 'failed')
            .map((step) => `Step ${step.step} ${step.action}: ${step.reason ?? 'failed'}`);
          const summary = [
            `Replay ${result.status}: ${result.steps.length} actions, ${failed} failed.`,
            ...failures,
            result.finalAnswer ? `Answer: ${result.finalAnswer}` : undefined,
            result.error ? `Error: ${result.error.message}` : undefined,
          ]
            .filter((line): line is string => line !== undefined)
            .join('\n');
          return result.status === 'ok' ? toolResult(summary, structured) : toolError(summary, structured);
        } catch (error) {
          return errorResult(error);
        }
      }),
  });

  const exportScript = defineTool({
    name: 'export_playwright',
    description: 'Turn a run that run_task saved into a standalone Playwright Test file; returns the script as text.',
    input: exportInput,
    annotations: { title: 'Export a run as a Playwright test', readOnlyHint: true, openWorldHint: false },
    run: async (args) => {
      try {
        const history = await loadHistory(await runtime.historyPath(args.history_file));
        const script = exportPlaywrightScript(history);
        return toolResult(script, { script });
      } catch (error) {
        if (PlannavError.isInstance(error)) return errorResult(error);
        return errorResult(new ConfigError(`Could not export ${args.history_file}.`, { cause: error }));
      }
    },
  });

  return [runTask, replay, exportScript];
}
