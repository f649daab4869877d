import { describe, expect, it } from 'vitest';
import type { ChatMessage, ContentPart } from '../llm/types';
import { MessageManager, wrapUserRequest } from './message-manager';

const systemPrompt = 'You are the Navigator.';

function textOf(message: ChatMessage | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function imagesOf(message: ChatMessage | undefined): number {
  if (!message || typeof message.content === 'string') return 0;
  return message.content.filter((part) => part.type === 'image').length;
}

function totalTokens(manager: MessageManager, messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + manager.estimateTokens(message), 0);
}

/** A message of exactly `tokens` estimated tokens (3 characters per token, 4 of overhead). */
function textOfTokens(tokens: number, fill = 'x'): string {
  return fill.repeat((tokens - 4) * 3);
}

function startedManager(maxInputTokens = 100_000): MessageManager {
  const manager = new MessageManager({ maxInputTokens });
  manager.initTask(systemPrompt, 'Find the cheapest mug');
  return manager;
}

function compactionNotes(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter((message) => textOf(message).includes('earlier messages were removed'));
}

describe('MessageManager conversation building', () => {
  it('starts with the system prompt and the task wrapped in <user_request>', () => {
    const messages = startedManager().messages();
    expect(messages).toEqual([
      { role: 'system', content: systemPrompt },
      { role: 'user', content: '<user_request>\nYour task:\nFind the cheapest mug\n</user_request>' },
    ]);
  });

  it('restarts the conversation on a new initTask', () => {
    const manager = startedManager();
    manager.addModelOutput('old output');
    manager.initTask('Second system', 'Another task');
    const messages = manager.messages();
    expect(messages).toHaveLength(2);
    expect(textOf(messages[0])).toBe('Second system');
    expect(textOf(messages[1])).toContain('Another task');
  });

  it('marks a follow-up task and removes the state message', () => {
    const manager = startedManager();
    manager.addStateMessage('state of the page');
    manager.addNewTask('Now find a teapot');
    const messages = manager.messages();
    expect(manager.hasStateMessage()).toBe(false);
    expect(messages.map(textOf)).not.toContain('state of the page');
    const followUp = textOf(messages.at(-1));
    expect(followUp).toBe(wrapUserRequest('Now find a teapot', true));
    expect(followUp).toContain('Your new task follows the previous ones');
    expect(followUp.startsWith('<user_request>\n')).toBe(true);
    expect(followUp.endsWith('\n</user_request>')).toBe(true);
  });

  it('inserts a plan before the state message', () => {
    const manager = startedManager();
    manager.addModelOutput('navigator output');
    manager.addStateMessage('current state');
    manager.addPlan('open the shop');
    const messages = manager.messages();
    expect(messages.map(textOf).slice(2)).toEqual(['navigator output', '<plan>\nopen the shop\n</plan>', 'current state']);
    expect(messages[3]?.role).toBe('assistant');
  });

  it('appends a plan when there is no state message', () => {
    const manager = startedManager();
    manager.addModelOutput('navigator output');
    manager.addPlan('next: search');
    expect(textOf(manager.messages().at(-1))).toBe('<plan>\nnext: search\n</plan>');
  });

  it('keeps only one state message, the latest, at the end', () => {
    const manager = startedManager();
    manager.addStateMessage('first state');
    manager.addModelOutput('output');
    manager.addStateMessage('second state');
    const texts = manager.messages().map(textOf);
    expect(texts).not.toContain('first state');
    expect(texts.filter((text) => text.includes('state'))).toEqual(['second state']);
    expect(texts.at(-1)).toBe('second state');
    manager.removeStateMessage();
    expect(manager.hasStateMessage()).toBe(false);
  });

  it('records model outputs as assistant messages and action results as user messages', () => {
    const manager = startedManager();
    manager.addModelOutput('{"action": []}');
    manager.addActionResult('Action result: clicked');
    const messages = manager.messages();
    expect(messages[2]).toEqual({ role: 'assistant', content: '{"action": []}' });
    expect(messages[3]).toEqual({ role: 'user', content: 'Action result: clicked' });
  });

  it('replaces the first message with another system prompt only in the returned copy', () => {
    const manager = startedManager();
    manager.addModelOutput('output');
    const forPlanner = manager.messages('You are the Planner.');
    expect(forPlanner[0]).toEqual({ role: 'system', content: 'You are the Planner.' });
    expect(forPlanner).toHaveLength(3);
    expect(manager.messages()[0]).toEqual({ role: 'system', content: systemPrompt });
  });

  it('returns a copy that callers cannot use to change the conversation', () => {
    const manager = startedManager();
    const messages = manager.messages();
    messages.push({ role: 'user', content: 'injected' });
    expect(manager.messages()).toHaveLength(2);
  });
});

describe('MessageManager token estimate', () => {
  it('counts a text message as characters divided by 3, rounded up, plus 4', () => {
    const manager = startedManager();
    expect(manager.estimateTokens({ role: 'user', content: '' })).toBe(4);
    expect(manager.estimateTokens({ role: 'user', content: 'abc' })).toBe(5);
    expect(manager.estimateTokens({ role: 'user', content: 'abcd' })).toBe(6);
    expect(manager.estimateTokens({ role: 'assistant', content: 'x'.repeat(300) })).toBe(104);
  });

  it('counts 800 tokens per image and the text of each part', () => {
    const manager = startedManager();
    const parts: ContentPart[] = [
      { type: 'text', text: 'x'.repeat(30) },
      { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
      { type: 'image', data: 'BBBB', mediaType: 'image/png' },
    ];
    expect(manager.estimateTokens({ role: 'user', content: parts })).toBe(4 + 10 + 1600);
  });

  it('honours custom characters per token and image tokens', () => {
    const manager = new MessageManager({ maxInputTokens: 1000, charactersPerToken: 4, imageTokens: 100 });
    const message: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'x'.repeat(8) },
        { type: 'image', data: 'A', mediaType: 'image/webp' },
      ],
    };
    expect(manager.estimateTokens(message)).toBe(4 + 2 + 100);
  });

  it('keeps a running total of the conversation', () => {
    const manager = startedManager();
    const before = manager.totalTokens;
    manager.addModelOutput(textOfTokens(50));
    expect(manager.totalTokens).toBe(before + 50);
  });
});

describe('MessageManager compaction', () => {
  it('leaves the conversation alone while it fits the budget', () => {
    const manager = startedManager(1000);
    manager.addModelOutput(textOfTokens(100));
    manager.addActionResult(textOfTokens(100));
    const messages = manager.messages();
    expect(messages).toHaveLength(4);
    expect(compactionNotes(messages)).toHaveLength(0);
  });

  it('drops the oldest droppable messages first and never the system prompt, task or state', () => {
    const manager = startedManager(1000);
    manager.addPlan(textOfTokens(300, 'p'));
    manager.addModelOutput(textOfTokens(300, 'm'));
    manager.addActionResult(textOfTokens(300, 'a'));
    manager.addModelOutput(textOfTokens(100, 'n'));
    manager.addStateMessage(textOfTokens(300, 's'));
    const messages = manager.messages();
    const texts = messages.map(textOf);
    expect(messages[0]).toEqual({ role: 'system', content: systemPrompt });
    expect(texts[1]).toContain('Find the cheapest mug');
    expect(texts.some((text) => text.includes('ppp'))).toBe(false);
    expect(texts.some((text) => text.includes('mmm'))).toBe(false);
    expect(texts.some((text) => text.includes('aaa'))).toBe(true);
    expect(texts.some((text) => text.includes('nnn'))).toBe(true);
    expect(texts.at(-1)).toBe(textOfTokens(300, 's'));
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(1000);
  });

  it('adds one note after the last task saying how many messages were removed', () => {
    const manager = startedManager(600);
    for (let index = 0; index < 6; index++) manager.addActionResult(textOfTokens(100, String(index)));
    const messages = manager.messages();
    const notes = compactionNotes(messages);
    expect(notes).toHaveLength(1);
    expect(textOf(notes[0])).toMatch(/^\[1 earlier messages were removed/);
    expect(notes[0]?.role).toBe('user');
    expect(messages[2]).toBe(notes[0]);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
  });

  it('counts removed messages across compactions and keeps a single note', () => {
    const manager = startedManager(600);
    const removedCountIn = (messages: readonly ChatMessage[]): number => Number(/^\[(\d+) earlier/.exec(textOf(compactionNotes(messages)[0]))?.[1]);
    for (let index = 0; index < 6; index++) manager.addActionResult(textOfTokens(100, 'r'));
    const firstRemoved = removedCountIn(manager.messages());
    expect(firstRemoved).toBeGreaterThan(0);
    for (let index = 0; index < 3; index++) manager.addActionResult(textOfTokens(100, 'r'));
    const messages = manager.messages();
    expect(compactionNotes(messages)).toHaveLength(1);
    const resultsLeft = messages.filter((message) => textOf(message).startsWith('rrr')).length;
    expect(removedCountIn(messages)).toBe(9 - resultsLeft);
    expect(removedCountIn(messages)).toBeGreaterThan(firstRemoved);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
  });

  it('places the note after the latest follow-up task', () => {
    const manager = startedManager(750);
    for (let index = 0; index < 4; index++) manager.addActionResult(textOfTokens(100, 'o'));
    manager.addNewTask('Follow-up task');
    for (let index = 0; index < 4; index++) manager.addActionResult(textOfTokens(100, 'n'));
    const messages = manager.messages();
    const followUpIndex = messages.findIndex((message) => textOf(message).includes('Follow-up task'));
    expect(followUpIndex).toBeGreaterThan(1);
    expect(compactionNotes(messages)).toHaveLength(1);
    expect(messages[followUpIndex + 1]).toBe(compactionNotes(messages)[0]);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(750);
  });

  it('fits the budget with a longer replacement system prompt', () => {
    const manager = startedManager(600);
    for (let index = 0; index < 4; index++) manager.addModelOutput(textOfTokens(100, 'm'));
    const plannerPrompt = 'P'.repeat(600);
    const messages = manager.messages(plannerPrompt);
    expect(messages[0]).toEqual({ role: 'system', content: plannerPrompt });
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
  });

  it('drops the state images first when the state alone is over budget', () => {
    const manager = startedManager(600);
    manager.addStateMessage([
      { type: 'text', text: 'small state' },
      { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
    ]);
    const messages = manager.messages();
    const state = messages.at(-1);
    expect(imagesOf(state)).toBe(0);
    expect(textOf(state)).toBe('small state');
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
  });

  it('cuts the state text with a marker when dropping its images is not enough', () => {
    const manager = startedManager(600);
    const longState = `BEGIN ${'page text '.repeat(400)} END`;
    manager.addStateMessage([
      { type: 'text', text: longState },
      { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
    ]);
    const messages = manager.messages();
    const state = textOf(messages.at(-1));
    expect(imagesOf(messages.at(-1))).toBe(0);
    expect(state.startsWith('BEGIN page text')).toBe(true);
    expect(state).not.toContain('END');
    expect(state.endsWith('[... the rest of the page was cut to fit the token budget ...]')).toBe(true);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
    expect(messages[0]).toEqual({ role: 'system', content: systemPrompt });
  });

  it('cuts the page elements, not what follows them (the step count and the last results)', () => {
    const manager = startedManager(600);
    const tail = '\n</untrusted_content>\nCurrent step: 7/100\nAction result 1/1: Clicked element 3';
    manager.addStateMessage([{ type: 'text', text: `[Current browser state]\n<untrusted_content>\n${'[1]<a>Product</a>\n'.repeat(400)}${tail}` }]);
    const messages = manager.messages();
    const state = textOf(messages.at(-1));
    expect(state.startsWith('[Current browser state]\n<untrusted_content>\n[1]<a>Product')).toBe(true);
    expect(state.endsWith(`[... the rest of the page was cut to fit the token budget ...]${tail}`)).toBe(true);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(600);
  });

  it('drops another old message rather than the state screenshot when the compaction note tips the budget', () => {
    // Removing two of the five 100-token results brings the total just under the budget; the
    // note added afterwards pushes it over again. A third old result could go, but the
    // screenshot of the current state is dropped instead.
    const manager = startedManager(1200);
    for (let index = 0; index < 5; index++) manager.addActionResult(textOfTokens(100, String(index)));
    const screenshotState: ContentPart[] = [
      { type: 'text', text: textOfTokens(50, 's') },
      { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
    ];
    manager.addStateMessage(screenshotState);
    const messages = manager.messages();
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(1200);
    expect(imagesOf(messages.at(-1))).toBe(1);
  });

  it('stays within the budget when there is no state message to shrink', () => {
    // Removing six old results brings the total just under the budget; the note added afterwards
    // pushes it over, and with no state message nothing else is shrunk.
    const manager = startedManager(470);
    for (let index = 0; index < 10; index++) manager.addActionResult(textOfTokens(100, String(index)));
    const messages = manager.messages();
    expect(compactionNotes(messages)).toHaveLength(1);
    expect(totalTokens(manager, messages)).toBeLessThanOrEqual(470);
  });
});

describe('MessageManager over a long task', () => {
  it('stays within budget for 300 steps and keeps the system prompt, the task and the latest state in place', () => {
    const maxInputTokens = 20_000;
    const manager = startedManager(maxInputTokens);
    const plannerPrompt = 'You are the Planner. '.repeat(40);
    for (let step = 1; step <= 300; step++) {
      const state = `[state of step ${step}]\n${'element line of the page '.repeat(80)}`;
      expect(state.length).toBeGreaterThan(2000);
      manager.addStateMessage(state);
      if (step % 3 === 0) {
        const forPlanner = manager.messages(plannerPrompt);
        expect(totalTokens(manager, forPlanner)).toBeLessThanOrEqual(maxInputTokens);
        expect(forPlanner[0]).toEqual({ role: 'system', content: plannerPrompt });
        manager.addPlan(`plan of step ${step}: ${'do this, then that. '.repeat(20)}`);
      }
      const messages = manager.messages();
      expect(totalTokens(manager, messages)).toBeLessThanOrEqual(maxInputTokens);
      expect(messages[0]).toEqual({ role: 'system', content: systemPrompt });
      expect(textOf(messages[1])).toContain('Find the cheapest mug');
      expect(textOf(messages.at(-1)).startsWith(`[state of step ${step}]`)).toBe(true);
      expect(compactionNotes(messages).length).toBeLessThanOrEqual(1);
      manager.removeStateMessage();
      manager.addModelOutput(`{"step": ${step}, "memory": "${'remembered facts '.repeat(30)}"}`);
      manager.addActionResult(`Action result: clicked element ${step}`);
      manager.addActionResult(`Action result: extracted ${'data '.repeat(60)}`);
    }
    const finalMessages = manager.messages();
    expect(compactionNotes(finalMessages)).toHaveLength(1);
    expect(textOf(finalMessages.at(-1))).toContain('extracted');
  });
});

describe('MessageManager compaction order', () => {
  it('drops old plans and model outputs before the results kept in memory, such as cached findings', () => {
    const manager = new MessageManager({ maxInputTokens: 1000 });
    manager.initTask('system prompt', 'the task');
    manager.addActionResult('Action result: Cached findings: the price is 12');
    for (let index = 0; index < 30; index++) {
      manager.addPlan(`plan ${index} ${'x'.repeat(90)}`);
      manager.addModelOutput(`output ${index} ${'y'.repeat(90)}`);
    }
    const texts = manager.messages().map((message) => (typeof message.content === 'string' ? message.content : ''));
    expect(texts.some((text) => text.includes('the price is 12'))).toBe(true);
    expect(texts.some((text) => text.includes('plan 0 x'))).toBe(false);
    expect(texts.some((text) => text.includes('plan 29 x'))).toBe(true);
    expect(texts.some((text) => text.startsWith('output 29 '))).toBe(true);
  });
});
