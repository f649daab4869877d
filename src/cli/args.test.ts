// The command line's parsing: strict flags, one-line usage errors naming the flag, lists, integers,
// choices and name=value pairs.
import { describe, expect, it } from 'vitest';
import { choiceFlag, integerFlag, listFlag, parseFlags, variablesFlag } from './args';
import { UsageError } from './io';
import { runFlags } from './run-command';

describe('parseFlags', () => {
  it('reads every flag of plannav run', () => {
    const { values, positionals } = parseFlags(
      'run',
      ['find it', '--model', 'openai:gpt-4.1-mini', '--allow', 'a.example', '--allow', 'b.example', '--headed', '--json'],
      runFlags,
    );
    expect(positionals).toEqual(['find it']);
    expect(values).toMatchObject({ model: 'openai:gpt-4.1-mini', allow: ['a.example', 'b.example'], headed: true, json: true });
  });

  it.each([
    [['--bogus'], /^unknown flag --bogus \(see plannav run --help\)$/],
    [['--model'], /^flag --model needs a value/],
    [['--headed=yes'], /headed/],
  ])('refuses %j with one line', (args, message) => {
    const error = (() => {
      try {
        parseFlags('run', args, runFlags);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('takes -h and --help on every command', () => {
    expect(parseFlags('export', ['-h'], {}).values.help).toBe(true);
    expect(parseFlags('report', ['--help'], {}).values.help).toBe(true);
  });

  it('refuses a positional where none is allowed', () => {
    expect(() => parseFlags('ui', ['extra'], {}, false)).toThrow(/unexpected argument: extra/);
  });
});

describe('flag values', () => {
  it('splits lists on commas too', () => {
    expect(listFlag({ allow: ['a.example, b.example', 'c.example'] }, 'allow')).toEqual(['a.example', 'b.example', 'c.example']);
    expect(listFlag({}, 'allow')).toBeUndefined();
  });

  it('reads positive integers and refuses anything else', () => {
    expect(integerFlag({ 'max-steps': '12' }, 'max-steps', 'run')).toBe(12);
    for (const bad of ['0', '-3', '1.5', 'ten', ''])
      expect(() => integerFlag({ 'max-steps': bad }, 'max-steps', 'run')).toThrow(/--max-steps must be an integer of 1 or more/);
  });

  it('reads a choice and names the choices when it is not one', () => {
    expect(choiceFlag({ scope: 'all-requests' }, 'scope', ['navigation', 'all-requests'], 'run')).toBe('all-requests');
    expect(() => choiceFlag({ scope: 'all' }, 'scope', ['navigation', 'all-requests'], 'run')).toThrow('--scope must be navigation or all-requests, got "all"');
  });

  it('reads name=value pairs, values with = in them too', () => {
    expect(variablesFlag({ var: ['email=b@example.com', 'query=a=b'] }, 'var', 'replay')).toEqual({ email: 'b@example.com', query: 'a=b' });
    expect(() => variablesFlag({ var: ['novalue'] }, 'var', 'replay')).toThrow('--var takes name=value, got "novalue"');
  });
});
