import { describe, expect, it } from 'vitest';
import { estimateTokens, maxRepairQuoteCharacters, repairRequest } from './repair-request';
import type { ChatMessage } from './types';

const conversation: ChatMessage[] = [
  { role: 'system', content: 'abc' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'abcdef' },
      { type: 'image', data: 'AAAA', mediaType: 'image/png' },
    ],
  },
];

describe('repairRequest', () => {
  it('counts tokens as the conversation does: 4 a message, 3 characters a token, 800 an image', () => {
    expect(estimateTokens(conversation)).toBe(4 + 1 + 4 + 2 + 800);
  });

  it('quotes a short reply whole, after the conversation, and the problem last', () => {
    const messages = repairRequest({ messages: conversation, reply: '{"a": 1', problem: 'Broken.' });
    expect(messages.slice(0, 2)).toEqual(conversation);
    expect(messages[2]).toEqual({ role: 'assistant', content: '{"a": 1' });
    expect(messages[3]).toEqual({
      role: 'user',
      content: 'Broken.\nReply again with exactly one JSON object that follows the required schema, and nothing else.',
    });
  });

  it('keeps the start and the end of a long reply, and says how much was cut', () => {
    const reply = `START${'m'.repeat(100_000)}END`;
    const quote = repairRequest({ messages: conversation, reply, problem: 'Broken.' })[2]?.content as string;
    expect(quote.length).toBeLessThanOrEqual(maxRepairQuoteCharacters);
    expect(quote.startsWith('START')).toBe(true);
    expect(quote.endsWith('END')).toBe(true);
    const cut = /\[\.\.\. ([\d,]+) of 100,008 characters cut \.\.\.\]/.exec(quote);
    expect(Number(cut?.[1]?.replaceAll(',', ''))).toBe(reply.length - (quote.length - (cut?.[0].length ?? 0) - 2));
  });

  it('cuts a very long problem description', () => {
    const problem = 'p'.repeat(50_000);
    const instruction = repairRequest({ messages: conversation, reply: 'x', problem })[3]?.content as string;
    expect(instruction.length).toBeLessThan(4_200);
  });
});
