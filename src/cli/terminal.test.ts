// The agent's questions on the terminal: asked on stderr, answered by a line of stdin; no answer
// for an empty line, the end of stdin or a cancel.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KeyControls, LineReader, terminalHumanInput } from './terminal';

const question = { questionId: 'question-1', question: 'Which size?', taskId: 't1', step: 1 };

function setUp(): { stdin: PassThrough; stderr: PassThrough; ask: ReturnType<typeof terminalHumanInput>; reader: LineReader } {
  const stdin = new PassThrough();
  const stderr = new PassThrough();
  const reader = new LineReader(stdin);
  const keys = new KeyControls(stdin, false, { pause: () => undefined, resume: () => undefined });
  return { stdin, stderr, reader, ask: terminalHumanInput(reader, stderr, keys) };
}

describe('terminalHumanInput', () => {
  it('prints the question with its time to answer and returns the line typed', async () => {
    const { stdin, stderr, ask, reader } = setUp();
    const answer = ask(question, { signal: new AbortController().signal, timeout: 60_000 });
    stdin.write('Large\n');
    expect(await answer).toBe('Large');
    expect(String(stderr.read())).toMatch(/\? Which size\?\n.*within 1 min 0 s/);
    reader.close();
  });

  it('keeps lines typed ahead for the next questions, in order', async () => {
    const { stdin, ask, reader } = setUp();
    stdin.write('first\nsecond\n');
    const signal = new AbortController().signal;
    expect(await ask(question, { signal, timeout: 1000 })).toBe('first');
    expect(await ask(question, { signal, timeout: 1000 })).toBe('second');
    reader.close();
  });

  it('gives no answer for an empty line, the end of stdin, or a cancel', async () => {
    const empty = setUp();
    const emptyAnswer = empty.ask(question, { signal: new AbortController().signal, timeout: 1000 });
    empty.stdin.write('   \n');
    expect(await emptyAnswer).toBeUndefined();

    const ended = setUp();
    const endedAnswer = ended.ask(question, { signal: new AbortController().signal, timeout: 1000 });
    ended.stdin.end();
    expect(await endedAnswer).toBeUndefined();

    const cancelled = setUp();
    const controller = new AbortController();
    const cancelledAnswer = cancelled.ask(question, { signal: controller.signal, timeout: 1000 });
    controller.abort();
    expect(await cancelledAnswer).toBeUndefined();
    for (const { reader } of [empty, ended, cancelled]) reader.close();
  });
});

describe('KeyControls', () => {
  it('pauses on p and resumes on r while started, and reads nothing once stopped', () => {
    const stdin = new PassThrough();
    const calls: string[] = [];
    const keys = new KeyControls(stdin, true, { pause: () => calls.push('pause'), resume: () => calls.push('resume') });
    keys.start();
    stdin.emit('data', 'pxr');
    keys.stop();
    stdin.emit('data', 'p');
    expect(calls).toEqual(['pause', 'resume']);
  });
});
