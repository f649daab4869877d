// Reads the secrets of a run from a dotenv file (`NAME=value` lines) with Node's own parser. The
// values go to the Executor only: no message, error or log line here ever holds one.

import { readFile } from 'node:fs/promises';
import * as util from 'node:util';
import { ConfigError } from '../index';

/** The Executor's rules for a secret's name and length (src/security/secrets.ts). */
const secretName = /^[A-Za-z_][\w-]{0,63}$/;
const shortestSecret = 3;

type ParseEnv = (content: string) => Record<string, string | undefined>;

/**
 * The secrets of a dotenv file, by name, for every page (the Executor's `secrets` option).
 * @throws `ConfigError` when the file cannot be read or holds no secret, or when this Node has no
 * `util.parseEnv` (Node 20.12 or later has it). The message names the file, never a value.
 */
export async function readSecretsFile(path: string): Promise<Record<string, string>> {
  // util.parseEnv came with Node 20.12; plannav supports Node 20.0 and later.
  const parseEnv = (util as { parseEnv?: ParseEnv }).parseEnv;
  if (typeof parseEnv !== 'function') {
    throw new ConfigError(`Reading the secrets file needs Node 20.12 or later (util.parseEnv); this is Node ${process.versions.node}.`, {
      field: 'secretsFile',
    });
  }
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'it may not be read' : `error ${typeof code === 'string' ? code : 'unknown'}`;
    throw new ConfigError(`The secrets file ${path} could not be read: ${why}. Give a dotenv file of NAME=value lines.`, { field: 'secretsFile' });
  }
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(content))) {
    if (value === undefined || value === '') continue;
    // The Executor's own rules for a secret (checked again there), told here before a browser opens.
    if (!secretName.test(name)) {
      throw new ConfigError(`The secrets file ${path} names a secret \`${name}\`: a name is letters, digits, "_" and "-", starting with a letter or "_".`, {
        field: 'secretsFile',
      });
    }
    if (value.length < shortestSecret) {
      throw new ConfigError(`The secret \`${name}\` in ${path} is shorter than ${shortestSecret} characters: redacting it would hide ordinary text.`, {
        field: 'secretsFile',
      });
    }
    secrets[name] = value;
  }
  if (Object.keys(secrets).length === 0) {
    throw new ConfigError(`The secrets file ${path} holds no secret: write one NAME=value line per secret.`, { field: 'secretsFile' });
  }
  return secrets;
}
