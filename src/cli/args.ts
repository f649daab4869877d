// Parses each command's flags with Node's own `util.parseArgs` (strict: an unknown flag or a
// missing value is an error) and turns its errors into one-line UsageErrors.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io';

/** The options of a command, as `util.parseArgs` takes them. */
export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/** What parsing gave: the flags by name and the positional arguments. */
export interface ParsedArgs {
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
}

/** `--help` and `-h`, on every command. */
export const helpFlag: FlagSpec = { help: { type: 'boolean', short: 'h' } };

/** Parses `args` against `options` for `command`; a bad flag is a UsageError naming it. */
export function parseFlags(command: string, args: readonly string[], options: FlagSpec, allowPositionals = true): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: { ...helpFlag, ...options }, strict: true, allowPositionals });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw new UsageError(`${usageMessage(error)} (see plannav ${command} --help)`);
  }
}

/** parseArgs's message, in a line of our own words where it has a code we know. */
function usageMessage(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const code = (error as { code?: unknown }).code;
  const flag = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) return `unknown flag ${flag}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) return `flag ${flag} needs a value`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument: ${message.replace(/^Unexpected argument '([^']*)'.*$/, '$1')}`;
  return message.replace(/\.$/, '');
}

export { booleanFlag, choiceFlag, integerFlag, listFlag, stringFlag } from '../front/flags';

/** `--var k=v` pairs as an object. */
export function variablesFlag(values: ParsedArgs['values'], name: string, command: string): Record<string, string> | undefined {
  const value = values[name];
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined;
  if (!list) return undefined;
  const variables: Record<string, string> = {};
  for (const pair of list) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new UsageError(`--${name} takes name=value, got ${JSON.stringify(pair)} (see plannav ${command} --help)`);
    variables[pair.slice(0, equals).trim()] = pair.slice(equals + 1);
  }
  return variables;
}
