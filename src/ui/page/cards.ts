// The run page's step cards: one per Planner, Navigator or validator step, filled in as its
// events arrive (plan or thoughts, each action and its result, the screenshot), and the summary.

import type { ActionEvent, CardEndEvent, CardStartEvent, PlanEvent, RunStartEvent, SummaryEvent, ThoughtsEvent } from '../messages';
import { byId, element, fields, formatCount, formatDuration } from './dom';
import { withToken } from './api';

const actors: Readonly<Record<CardStartEvent['actor'], string>> = {
  planner: 'Planner',
  navigator: 'Navigator',
  validator: 'Validator',
  system: 'System',
  user: 'You',
};

const actionStates: Readonly<Record<ActionEvent['status'], string>> = {
  running: 'running…',
  ok: 'done',
  failed: 'failed',
  exact: 'replayed',
  healed: 'healed',
  skipped: 'skipped',
};

/** The cards of the page, by the server's card id. */
export class CardList {
  private readonly cards = new Map<number, HTMLElement>();
  private readonly container = byId('cards');
  private readonly empty = byId('empty');

  /** Removes every card (a new run, or the server's `hello`). */
  clear(): void {
    this.cards.clear();
    this.container.replaceChildren(this.empty);
    this.empty.hidden = false;
  }

  /** A heading for a task, a follow-up or a replay. */
  runStarted(run: RunStartEvent): void {
    if (run.fresh) this.clear();
    this.empty.hidden = true;
    const kind = run.kind === 'follow-up' ? 'Follow-up' : run.kind === 'replay' ? 'Replay' : 'Task';
    this.container.append(element('h2', { class: 'task-heading' }, element('span', { class: 'kind' }, `${kind}: `), run.task));
  }

  start(event: CardStartEvent): void {
    this.empty.hidden = true;
    const card = element(
      'article',
      { class: `card ${event.actor}`, 'data-testid': 'step-card', 'data-actor': event.actor, 'data-step': String(event.step) },
      element(
        'header',
        {},
        element('strong', {}, actors[event.actor]),
        element('span', {}, `step ${event.step}`),
        element('span', { class: 'meta' }, 'working…'),
      ),
    );
    this.cards.set(event.cardId, card);
    following(() => this.container.append(card));
  }

  plan(event: PlanEvent): void {
    const card = this.cards.get(event.cardId);
    if (!card) return;
    const plan = element(
      'div',
      { 'data-testid': 'plan', class: 'plan' },
      fields([
        ['Observation', event.observation],
        ['Challenges', event.challenges],
        ['Next steps', event.nextSteps],
        ['Reasoning', event.reasoning],
        ['Done', event.done ? 'yes' : undefined],
        ['Final answer', event.finalAnswer],
      ]),
    );
    card.append(plan);
  }

  thoughts(event: ThoughtsEvent): void {
    const card = this.cards.get(event.cardId);
    if (!card) return;
    card.append(
      fields([
        ['Evaluation', event.evaluation || '-', 'evaluation'],
        ['Memory', event.memory || '-', 'memory'],
        ['Next goal', event.nextGoal || '-', 'next-goal'],
      ]),
    );
  }

  action(event: ActionEvent): void {
    const card = this.cards.get(event.cardId);
    if (!card) return;
    let list = card.querySelector<HTMLOListElement>('ol.actions');
    if (!list) {
      list = element('ol', { class: 'actions' });
      card.append(list);
    }
    const item = element(
      'li',
      { class: `action ${event.status}`, 'data-testid': 'action', 'data-index': String(event.actionIndex), 'data-status': event.status },
      element('code', { class: 'name' }, event.name),
      element('span', { class: 'state' }, actionStates[event.status]),
      event.params ? element('pre', { class: 'params' }, event.params) : undefined,
      event.detail ? element('p', { class: 'detail' }, event.detail) : undefined,
    );
    const existing = list.querySelector(`li[data-index="${event.actionIndex}"]`);
    following(() => (existing ? existing.replaceWith(item) : list.append(item)));
  }

  end(event: CardEndEvent): void {
    const card = this.cards.get(event.cardId);
    if (!card) return;
    const meta = card.querySelector('.meta');
    if (meta) meta.textContent = `${formatDuration(event.durationMs)} · ${formatCount(event.tokens)} tokens`;
    if (event.error) {
      card.classList.add('failed');
      card.append(element('p', { class: 'error' }, event.error));
    }
    // The history keeps the page as the step's agent saw it, before its actions.
    if (event.url) card.append(element('p', { class: 'page-line' }, `Seen: ${event.title || '(no title)'} — ${event.url}`));
    // A blank page's picture says nothing (the first step, before any page opened).
    if (event.screenshot && event.url !== 'about:blank') {
      card.append(
        element('img', { class: 'step-screenshot', 'data-testid': 'step-screenshot', src: event.screenshot, alt: 'The page as the agent saw it in this step' }),
      );
    }
  }
}

/** Whether the window shows the end of the page: then new cards keep it there, as a log that follows. */
function atBottom(): boolean {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
}

/** Runs `change`, then scrolls to the end if the page was at its end before. */
function following(change: () => void): void {
  const follow = atBottom();
  change();
  if (follow) window.scrollTo({ top: document.documentElement.scrollHeight });
}

const downloadKinds = ['history', 'gif', 'report'] as const;

/** Fills the summary card with how the run ended, and offers its files. */
export function showSummary(summary: SummaryEvent): void {
  const card = byId('summary');
  card.hidden = false;
  card.classList.toggle('success', summary.success);
  card.classList.toggle('unsuccessful', !summary.success);
  byId('summary-title').textContent = summary.kind === 'replay' ? 'Replay summary' : 'Summary';
  const cost = summary.costUsd === undefined || summary.costUsd === null ? 'unknown (no price for this model)' : `$${summary.costUsd.toFixed(4)}`;
  const replay = summary.replay;
  byId('summary-fields').replaceWith(
    Object.assign(
      fields([
        ['Status', `${summary.status}${summary.success ? '' : summary.status === 'done' ? ' (not successful)' : ''}`, 'summary-status'],
        ['Result', summary.result || '-', 'summary-result'],
        ['Duration', formatDuration(summary.durationMs), 'summary-duration'],
        ['Steps', String(summary.steps)],
        ['Model calls', String(summary.modelCalls)],
        ['Tokens', `${formatCount(summary.totalTokens)} (${formatCount(summary.inputTokens)} in, ${formatCount(summary.outputTokens)} out)`, 'summary-tokens'],
        ['Cost', cost, 'summary-cost'],
        [
          'Replayed',
          replay ? `${replay.exact} exact, ${replay.healed} healed, ${replay.failed} failed, ${replay.skipped} skipped` : undefined,
          'summary-replay',
        ],
        ['Errors', summary.errors.length === 0 ? 'none' : String(summary.errors.length), 'summary-errors'],
      ]),
      { id: 'summary-fields' },
    ),
  );
  const errors = byId('summary-errors');
  errors.replaceChildren(...summary.errors.map((error) => element('li', { class: 'error' }, error)));
  errors.hidden = summary.errors.length === 0;
  for (const kind of downloadKinds) {
    const link = byId(`download-${kind}`, HTMLAnchorElement);
    link.hidden = !summary.downloads[kind];
    // The run id makes each run's link new, so a browser never offers an earlier run's file.
    link.href = withToken(`/download/${kind}`, { run: String(summary.runId) });
  }
  // The outcome is what one came back for: it sits above the cards, which may have scrolled it away.
  card.scrollIntoView({ block: 'start' });
}

/** Hides the summary (a run starts). */
export function hideSummary(): void {
  byId('summary').hidden = true;
}
