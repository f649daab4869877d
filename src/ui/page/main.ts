// The run page's script: follows the server's events (cards, live view, status, questions,
// summary) and sends the controls' commands. Bundled with its modules into the page's one inline script.

import type { HelloEvent, NoticeEvent, PageSettings, RunStatus } from '../messages';
import { command, listen } from './api';
import { CardList, hideSummary, showSummary } from './cards';
import { byId, element } from './dom';

const cards = new CardList();
const taskInput = byId('task-input', HTMLTextAreaElement);
const submit = byId('submit', HTMLButtonElement);
const newSession = byId('new-session', HTMLButtonElement);
const pause = byId('pause', HTMLButtonElement);
const resume = byId('resume', HTMLButtonElement);
const stop = byId('stop', HTMLButtonElement);
const status = byId('run-status');
const liveView = byId('live-view', HTMLImageElement);
const questionPanel = byId('question-panel');
const answerInput = byId('answer-input', HTMLInputElement);
const replay = byId('replay', HTMLButtonElement);
const historyInput = byId('history-file-input', HTMLInputElement);

/** What the page knows of the server's state. */
const state = { status: 'idle' as RunStatus, canFollowUp: false, questionId: undefined as string | undefined, historyOpened: false, settingsShown: false };

function notice(level: NoticeEvent['level'], message: string): void {
  const list = byId('notices');
  list.prepend(element('li', { class: level }, `${new Date().toLocaleTimeString()} ${message}`));
  while (list.childElementCount > 100) list.lastElementChild?.remove();
}

const busy = (): boolean => state.status === 'starting' || state.status === 'running' || state.status === 'paused';

/** Enables the controls that make sense now, and words the submit button. */
function refreshControls(): void {
  status.textContent = state.status;
  status.className = `status status-${state.status}`;
  pause.disabled = state.status !== 'running';
  resume.disabled = state.status !== 'paused';
  stop.disabled = !busy();
  submit.disabled = busy();
  submit.textContent = state.canFollowUp ? 'Send follow-up' : 'Run';
  byId('submit-hint').textContent = state.canFollowUp ? 'A follow-up runs in the same session and browser.' : '';
  newSession.disabled = busy() || !state.canFollowUp;
  replay.disabled = busy() || !state.historyOpened;
}

function setStatus(next: RunStatus, canFollowUp: boolean): void {
  state.status = next;
  state.canFollowUp = canFollowUp;
  refreshControls();
}

function showSettings(settings: PageSettings): void {
  byId('model-input', HTMLInputElement).value = settings.model;
  byId('planner-model-input', HTMLInputElement).value = settings.plannerModel;
  byId('extractor-model-input', HTMLInputElement).value = settings.extractorModel;
  byId('headless-toggle', HTMLInputElement).checked = settings.headless;
  byId('cdp-url-input', HTMLInputElement).value = settings.cdpUrl;
  byId('allowed-hosts-input', HTMLInputElement).value = settings.allowedHosts.join(', ');
  byId('max-steps-input', HTMLInputElement).value = settings.maxSteps > 0 ? String(settings.maxSteps) : '';
}

function readSettings(): PageSettings {
  const text = (id: string): string => byId(id, HTMLInputElement).value.trim();
  const maxSteps = Number.parseInt(text('max-steps-input'), 10);
  return {
    model: text('model-input'),
    plannerModel: text('planner-model-input'),
    extractorModel: text('extractor-model-input'),
    headless: byId('headless-toggle', HTMLInputElement).checked,
    cdpUrl: text('cdp-url-input'),
    allowedHosts: text('allowed-hosts-input')
      .split(/[\s,]+/)
      .filter(Boolean),
    maxSteps: Number.isFinite(maxSteps) && maxSteps > 0 ? maxSteps : 0,
  };
}

function hello(event: HelloEvent): void {
  cards.clear();
  hideSummary();
  questionPanel.hidden = true;
  state.questionId = undefined;
  byId('mode').hidden = !event.demo;
  byId('model-input', HTMLInputElement).placeholder = event.demo ? 'the demo’s scripted model' : 'openai:gpt-4.1-mini';
  // The form shows the server's settings once; later the person's edits stay.
  if (!state.settingsShown) showSettings(event.settings);
  state.settingsShown = true;
  if (!taskInput.value && event.demoTask) taskInput.value = event.demoTask;
  state.historyOpened = event.openedHistory !== undefined;
  setStatus(event.status, event.canFollowUp);
}

listen(
  {
    hello,
    'run-start': (event) => {
      hideSummary();
      cards.runStarted(event);
    },
    status: (event) => setStatus(event.status, event.canFollowUp),
    'card-start': (event) => cards.start(event),
    plan: (event) => cards.plan(event),
    thoughts: (event) => cards.thoughts(event),
    action: (event) => cards.action(event),
    'card-end': (event) => cards.end(event),
    live: (event) => {
      liveView.src = event.image;
      liveView.hidden = false;
      byId('live-placeholder').hidden = true;
      byId('live-url').textContent = event.url;
    },
    question: (event) => {
      state.questionId = event.questionId;
      byId('question').textContent = event.question;
      questionPanel.hidden = false;
      answerInput.value = '';
      answerInput.focus();
    },
    'question-end': (event) => {
      if (state.questionId !== event.questionId) return;
      state.questionId = undefined;
      questionPanel.hidden = true;
      if (event.timedOut) notice('warning', 'The question timed out; the agent went on without an answer.');
    },
    summary: (event) => showSummary(event),
    notice: (event) => notice(event.level, event.message),
  },
  (connected) => {
    const connection = byId('connection');
    connection.textContent = connected ? 'connected' : 'reconnecting…';
    connection.classList.toggle('offline', !connected);
  },
);

/** Runs a command; its failure goes to the messages, never to an unhandled rejection. */
function send(run: () => Promise<unknown>): void {
  run().catch((error: unknown) => notice('error', error instanceof Error ? error.message : String(error)));
}

byId('task-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const task = taskInput.value.trim();
  if (state.canFollowUp) {
    if (!task) return notice('error', 'Type the follow-up task first.');
    send(async () => {
      await command('follow-up', { task });
      taskInput.value = '';
    });
  } else {
    send(() => command('run', { task, settings: readSettings() }));
  }
});
byId('settings').addEventListener('submit', (event) => event.preventDefault());
newSession.addEventListener('click', () => send(() => command('new-session', {})));
pause.addEventListener('click', () => send(() => command('pause', {})));
resume.addEventListener('click', () => send(() => command('resume', {})));
stop.addEventListener('click', () => send(() => command('stop', {})));
byId('answer-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const questionId = state.questionId;
  if (!questionId) return;
  send(() => command('answer', { questionId, text: answerInput.value }));
});
historyInput.addEventListener('change', () => {
  const file = historyInput.files?.[0];
  if (!file) return;
  send(async () => {
    let history: unknown;
    try {
      history = JSON.parse(await file.text());
    } catch {
      throw new Error(`${file.name} is not JSON: open the history.json a run saved.`);
    }
    const opened = (await command('open-history', { name: file.name, history })) as { tasks: string[]; steps: number };
    byId('history-info').textContent = `${file.name}: ${opened.tasks.join(' / ')} (${opened.steps} steps).`;
    state.historyOpened = true;
    refreshControls();
  });
});
replay.addEventListener('click', () => send(() => command('replay', {})));
refreshControls();
