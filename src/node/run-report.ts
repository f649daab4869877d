// A run as one self-contained HTML file: its tasks, then a card per step with the screenshot, the
// model's reasoning, the actions and their cost. No script, no request: everything is inline and every text is escaped.

import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import type { ErrorInfo } from '../events';
import type { ActionRecord, RunHistory, StepRecord } from '../history/types';
import type { TokenUsage } from '../llm/usage';
import { throwIfAborted } from '../util/abort';
import { checkedHistory, traceFileName, writeAtomically } from './history-files';

/**
 * Options of {@link createRunReport}.
 * @example
 * ```ts
 * await createRunReport(result.history, 'runs/checkout.html', { title: 'Checkout, nightly run' });
 * ```
 * @public
 */
export interface RunReportOptions {
  /** The page's title and heading. @defaultValue the first task's text */
  readonly title?: string | undefined;
  /** Cancels the report; the file is then not written. */
  readonly signal?: AbortSignal | undefined;
  // Issue 24: the run's Playwright trace and videos, linked from the report.
  /**
   * The run's Playwright trace to link, or `false` for none.
   * @defaultValue `trace.zip` beside the report, when there is one (where `saveHistory` and `plannav run --trace` put it)
   */
  readonly trace?: string | false | undefined;
  /**
   * The run's videos to link.
   * @defaultValue the `.webm` files beside the report (`PlaywrightDriver.launch({ video: { dir } })` with the report's folder)
   */
  readonly videos?: readonly string[] | undefined;
}

/** What {@link createRunReport} wrote. @public */
export interface RunReportResult {
  /** The absolute path of the HTML file. */
  readonly path: string;
  /** How many step cards it holds: one per Planner, Navigator and validator step. */
  readonly steps: number;
  /** Its size in bytes. */
  readonly bytes: number;
}

/** `text` safe in HTML text and in quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Any value as escaped text: strings as they are, everything else as indented JSON. */
function text(value: unknown): string {
  if (typeof value === 'string') return escapeHtml(value);
  if (value === undefined) return '';
  try {
    // JSON.stringify gives `undefined` for a function or a symbol, and throws on a bigint without the replacer.
    return escapeHtml(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item), 2) ?? `(${typeof value})`);
  } catch {
    return '(a value with a cycle)';
  }
}

const numberFormat = new Intl.NumberFormat('en-US');

function formatCost(costUsd: number | undefined): string {
  // A history read back from JSON has no key where the cost was unknown; be as lenient with a null.
  if (typeof costUsd !== 'number') return 'cost unknown';
  return `$${costUsd < 0.01 ? costUsd.toFixed(5) : costUsd.toFixed(4)}`;
}

function formatUsage(usage: TokenUsage): string {
  return `${numberFormat.format(usage.totalTokens)} tokens (${numberFormat.format(usage.inputTokens)} in, ${numberFormat.format(usage.outputTokens)} out) · ${formatCost(usage.costUsd)}`;
}

/** The sum of the steps' usages; the cost is unknown when one step's is. */
function totalUsage(steps: readonly StepRecord[]): TokenUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let cachedInputTokens = 0;
  let reasoningTokens = 0;
  let calls = 0;
  let costUsd: number | undefined = 0;
  for (const { usage } of steps) {
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    cachedInputTokens += usage.cachedInputTokens;
    reasoningTokens += usage.reasoningTokens;
    calls += usage.calls;
    costUsd = costUsd === undefined || typeof usage.costUsd !== 'number' ? undefined : costUsd + usage.costUsd;
  }
  return { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens: inputTokens + outputTokens, calls, costUsd };
}

function errorHtml(error: ErrorInfo): string {
  return `<p class="error"><strong>${text(error.name)}</strong> <code>${text(error.code)}</code> ${text(error.message)}</p>`;
}

function field(label: string, value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  return `<dt>${escapeHtml(label)}</dt><dd>${text(value)}</dd>`;
}

/** The Navigator's own words: its evaluation of the last goal, its memory and its next goal. */
function navigatorThoughts(step: StepRecord): string {
  const output = step.modelOutput as { current_state?: Record<string, unknown> } | null | undefined;
  const state = typeof output === 'object' && output !== null ? output.current_state : undefined;
  if (!state || typeof state !== 'object') return '';
  const fields = field('Evaluation', state.evaluation_previous_goal) + field('Memory', state.memory) + field('Next goal', state.next_goal);
  return fields ? `<dl>${fields}</dl>` : '';
}

function planHtml(step: StepRecord): string {
  const { plan } = step;
  if (!plan) return '';
  return `<dl>${field('Observation', plan.observation)}${field('Challenges', plan.challenges)}${field('Next steps', plan.nextSteps)}${field('Reasoning', plan.reasoning)}${field('Done', plan.done ? 'yes' : 'no')}${field('Final answer', plan.finalAnswer)}</dl>`;
}

function actionHtml(action: ActionRecord): string {
  const outcome = action.error ? errorHtml(action.error) : action.result !== undefined ? `<p class="result">${text(action.result)}</p>` : '';
  return (
    `<li class="action${action.error ? ' failed' : ''}"><code class="name">${text(action.name)}</code>` +
    `<pre class="params">${text(action.params)}</pre>${outcome}</li>`
  );
}

function screenshotHtml(history: RunHistory, step: StepRecord): string {
  if (!step.screenshot) return '';
  const bytes = history.screenshots.get(step.screenshot.part);
  if (!bytes) return `<p class="missing">Screenshot ${text(step.screenshot.part)} is missing from the history.</p>`;
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  // The media type comes from the history, which may have been edited: only the two it allows reach the data: URI.
  const mediaType = step.screenshot.mediaType === 'image/png' ? 'image/png' : 'image/jpeg';
  return `<img class="screenshot" alt="${escapeHtml(`Screenshot of step ${step.step}`)}" src="data:${mediaType};base64,${escapeHtml(data)}">`;
}

function stepHtml(history: RunHistory, step: StepRecord, severalTasks: boolean): string {
  const actor = step.actor === 'navigator' ? 'Navigator' : step.actor === 'planner' ? 'Planner' : 'Validator';
  const heading = `${severalTasks ? `Task ${step.taskIndex + 1} · ` : ''}${actor} · step ${step.step}`;
  const browser = step.browser
    ? `<p class="page"><span class="title">${text(step.browser.title || '(no title)')}</span> <span class="url">${text(step.browser.url)}</span></p>`
    : '';
  const actions = step.actions.length > 0 ? `<ol class="actions">${step.actions.map(actionHtml).join('')}</ol>` : '';
  const calls = step.modelCalls.length > 1 ? ` in ${step.modelCalls.length} model calls` : '';
  return (
    `<article class="step ${escapeHtml(step.actor)}${step.error ? ' failed' : ''}" data-step="${escapeHtml(String(step.step))}" data-actor="${escapeHtml(step.actor)}">` +
    `<h2>${escapeHtml(heading)}</h2>${browser}${screenshotHtml(history, step)}` +
    `${step.actor === 'navigator' ? navigatorThoughts(step) : planHtml(step)}${actions}` +
    (step.error ? errorHtml(step.error) : '') +
    `<p class="usage">${escapeHtml(`${formatUsage(step.usage)}${calls} · ${numberFormat.format(Math.round(step.durationMs))} ms`)}</p></article>`
  );
}

function headerHtml(history: RunHistory, title: string, recordings = ''): string {
  const tasks = history.tasks
    .map(
      (task) =>
        `<li><p class="task">${text(task.task)}</p><p class="status status-${escapeHtml(task.status ?? 'running')}">${escapeHtml(task.status ?? 'not ended')}</p>` +
        `${task.finalAnswer ? `<p class="answer">${text(task.finalAnswer)}</p>` : ''}${task.error ? errorHtml(task.error) : ''}</li>`,
    )
    .join('');
  return `<header><h1>${text(title)}</h1><ol class="tasks">${tasks}</ol><p class="total">${escapeHtml(formatUsage(totalUsage(history.steps)))}</p>${recordings}</header>`;
}

/** The run's recordings to link: the options' files, else the trace and videos found beside the report. */
async function recordingsOf(target: string, options: RunReportOptions): Promise<{ trace: string | undefined; videos: string[] }> {
  const folder = dirname(target);
  const isFile = (path: string) =>
    stat(path).then(
      (stats) => stats.isFile(),
      () => false,
    );
  const beside = options.trace === undefined || options.videos === undefined ? await readdir(folder).catch(() => [] as string[]) : [];
  const trace =
    options.trace === false
      ? undefined
      : options.trace !== undefined
        ? resolve(options.trace)
        : beside.includes(traceFileName) && (await isFile(resolve(folder, traceFileName)))
          ? resolve(folder, traceFileName)
          : undefined;
  const videos =
    options.videos !== undefined
      ? options.videos.map((video) => resolve(video))
      : beside
          .filter((name) => name.endsWith('.webm'))
          .sort()
          .map((name) => resolve(folder, name));
  return { trace, videos };
}

/** A link to a file, relative to the report's folder (so the folder can move), each path segment URI-encoded. */
function fileLink(folder: string, path: string, label: string): string {
  const href = relative(folder, path).split(sep).map(encodeURIComponent).join('/');
  return `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
}

function recordingsHtml(folder: string, recordings: { trace: string | undefined; videos: readonly string[] }): string {
  const items: string[] = [];
  if (recordings.trace) {
    items.push(
      `<li class="trace">Playwright trace: ${fileLink(folder, recordings.trace, relative(folder, recordings.trace))} ` +
        `<span class="hint">(open it with <code>npx playwright show-trace</code> or at trace.playwright.dev)</span></li>`,
    );
  }
  for (const [index, video] of recordings.videos.entries())
    items.push(`<li class="video">Video ${index + 1}: ${fileLink(folder, video, relative(folder, video))}</li>`);
  return items.length > 0 ? `<ul class="recordings">${items.join('')}</ul>` : '';
}

const styles = `
:root{color-scheme:light dark;--fg:#0f172a;--muted:#64748b;--bg:#f8fafc;--card:#fff;--line:#e2e8f0;--accent:#2563eb;--bad:#b91c1c}
@media (prefers-color-scheme:dark){:root{--fg:#e2e8f0;--muted:#94a3b8;--bg:#0f172a;--card:#1e293b;--line:#334155;--accent:#60a5fa;--bad:#f87171}}
*{box-sizing:border-box}body{margin:0;padding:24px;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:960px;margin:0 auto}h1{font-size:22px;margin:0 0 12px}h2{font-size:16px;margin:0 0 8px}
header,.step{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px;margin-bottom:16px}
.tasks{padding-left:20px;margin:0}.task{font-weight:600;margin:0}.status{margin:0;color:var(--muted)}.status-ok{color:#15803d}
.answer{margin:4px 0}.total,.usage,.page{color:var(--muted);font-size:13px;margin:8px 0 0}.url{word-break:break-all}
.planner{border-left:4px solid #a855f7}.navigator{border-left:4px solid var(--accent)}.validator{border-left:4px solid #14b8a6}
.screenshot{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px;margin:8px 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dt{color:var(--muted)}dd{margin:0;white-space:pre-wrap}
.actions{padding-left:20px;margin:8px 0}.action{margin-bottom:6px}.name{font-weight:600}
pre{margin:2px 0;padding:6px 8px;background:var(--bg);border-radius:4px;white-space:pre-wrap;word-break:break-word;font-size:13px}
.result{margin:2px 0}.error,.failed>h2{color:var(--bad)}.error{margin:4px 0}
.recordings{padding-left:20px;margin:8px 0 0;font-size:13px}.hint{color:var(--muted)}a{color:var(--accent)}
`;

/**
 * Writes a run as one self-contained HTML page, for reading or sharing offline: a header with the
 * tasks, how each ended, the final answers and the total tokens and cost; then a card per step
 * (`<article class="step" data-step="…">`) with its agent, the page's URL and title, the
 * screenshot, the Navigator's evaluation, memory and next goal (or the Planner's plan), each action
 * with its parameters and its result or error, and the tokens and cost of the step.
 *
 * @remarks
 * Node only, no dependency. The page runs no script and makes no request: styles are inline,
 * screenshots are `data:` URIs, and a Content-Security-Policy forbids anything else. Page titles,
 * URLs and model outputs come from the web and the model, so every text is HTML-escaped. The file
 * is written to a temporary file and renamed, so `path` never holds half a report; its folder is
 * created when missing. The run's Playwright trace (`trace.zip`) and videos (`.webm`) beside the
 * report are linked from its header, by paths relative to the report (see `trace` and `videos`).
 *
 * @param history - The run's history, such as `result.history` or `await loadHistory(file)`.
 * @param path - Where to write the HTML file.
 * @throws `HistoryFormatError` naming the field at fault when `history` is not a valid history
 * (one built or edited by hand), before anything is written.
 * @example
 * ```ts
 * import { createRunReport } from 'plannav/node';
 *
 * const result = await executor.execute();
 * const report = await createRunReport(result.history, 'runs/checkout.html');
 * console.log(`${report.steps} steps in ${report.path}`);
 * ```
 * @public
 */
export async function createRunReport(history: RunHistory, path: string, options: RunReportOptions = {}): Promise<RunReportResult> {
  throwIfAborted(options.signal);
  // Every field of the format checked (a step number is a number, a media type one of two) before any reaches the page.
  const checked = checkedHistory(history);
  const title = options.title ?? checked.tasks[0]?.task ?? 'plannav run';
  const severalTasks = checked.tasks.length > 1;
  const cards = checked.steps.map((step) => stepHtml(checked, step, severalTasks));
  const target = resolve(path);
  const recordings = recordingsHtml(dirname(target), await recordingsOf(target, options));
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<title>${text(title)}</title><style>${styles}</style></head>` +
    `<body><main>${headerHtml(checked, title, recordings)}${cards.join('\n')}</main></body></html>\n`;
  const bytes = Buffer.byteLength(html, 'utf8');
  throwIfAborted(options.signal);
  await mkdir(dirname(target), { recursive: true });
  await writeAtomically(target, html);
  return { path: target, steps: cards.length, bytes };
}
