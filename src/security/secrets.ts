// Secrets the model never sees: it is told their names, writes `<secret>name</secret>` in an
// action's text, and the value is put in at the last moment, only on the pages the secret is for.
// Every value that comes back (page text, URLs, results, errors, events, history) is redacted to
// its placeholder, raw and in the encodings it takes on a page or in a URL.

import { TOTP } from 'otpauth';
import { ActionError, ConfigError } from '../errors';
import { Redactor, type JoinedRedactionOptions } from './redaction';
import { matchesUrlPattern, validateUrlPattern } from './url-pattern';

/**
 * The value of one secret: a string, a TOTP seed (`{ totp: 'BASE32SEED' }`: the current one-time
 * code, from `otpauth`), or a function that returns it when it is used (to fetch from a vault at
 * use time).
 * @public
 */
export type SecretValue =
  | string
  | {
      /** The base32 seed, as an authenticator app's QR code holds it. */
      readonly totp: string;
      /** Digits of a code. @defaultValue 6 */
      readonly digits?: number | undefined;
      /** Seconds a code lasts. @defaultValue 30 */
      readonly period?: number | undefined;
      /** The HMAC algorithm. @defaultValue 'SHA1' */
      readonly algorithm?: 'SHA1' | 'SHA256' | 'SHA512' | undefined;
    }
  | (() => string | Promise<string>);

/**
 * The `secrets` option: names to values, for every page (`{ apiKey: '…' }`), or bound to the pages
 * of a URL pattern, the syntax of an action's `urlPatterns`
 * (`{ 'https://*.bank.example': { user: '…', password: '…' } }`); a URL glob written as an origin
 * alone stands for every page of that origin.
 * @public
 */
export type SecretsOption = Readonly<Record<string, SecretValue | Readonly<Record<string, SecretValue>>>>;

/** The placeholder the model writes, and that redaction leaves where a value was. */
export function secretPlaceholder(name: string): string {
  return `<secret>${name}</secret>`;
}

const placeholderPattern = /<secret>\s*([A-Za-z_][\w-]*)\s*<\/secret>/g;
const namePattern = /^[A-Za-z_][\w-]{0,63}$/;
/** A value shorter than this would redact ordinary text everywhere. */
const minimumLength = 3;

interface Entry {
  readonly name: string;
  /** The pages it is for; undefined for every page. */
  readonly pattern: string | undefined;
  readonly value: SecretValue;
}

const isTotp = (value: unknown): value is Extract<SecretValue, { totp: string }> =>
  typeof value === 'object' && value !== null && typeof (value as { totp?: unknown }).totp === 'string';

function checkValue(value: unknown, field: string): SecretValue {
  if (typeof value === 'function') return value as () => string;
  if (isTotp(value)) {
    try {
      new TOTP({ secret: value.totp, digits: value.digits ?? 6, period: value.period ?? 30, algorithm: value.algorithm ?? 'SHA1' }).generate();
    } catch (error) {
      throw new ConfigError(`Secret \`${field}\` has a TOTP seed that cannot be used: ${(error as Error).message}. Give the base32 seed.`, { field });
    }
    return value;
  }
  if (typeof value !== 'string') {
    throw new ConfigError(`Secret \`${field}\` must be a string, { totp: seed } or a function that returns the value; got ${typeof value}.`, { field });
  }
  if (value.length < minimumLength) {
    throw new ConfigError(`Secret \`${field}\` is shorter than ${minimumLength} characters: redacting it would hide ordinary text.`, { field });
  }
  return value;
}

function checkName(name: string, field: string): void {
  if (!namePattern.test(name)) {
    throw new ConfigError(`Secret name \`${field}\` must be letters, digits, "_" and "-", starting with a letter or "_".`, { field });
  }
}

/**
 * The secrets of a run: which apply to a page, their values at use time, and the redaction of
 * every value that may come back.
 */
export class SecretStore {
  private readonly entries: Entry[] = [];
  /** The values known so far (static ones at once, others once used), by name. */
  private readonly known = new Map<string, Set<string>>();
  private redaction: Redactor | undefined;

  /** @throws `ConfigError` (field `secrets.<key>`) for a bad name, pattern or value. */
  constructor(option: unknown) {
    if (option === undefined) return;
    if (typeof option !== 'object' || option === null || Array.isArray(option)) {
      throw new ConfigError('Option `secrets` must be an object of names to values, or of URL patterns to such objects.', { field: 'secrets' });
    }
    for (const [key, value] of Object.entries(option)) {
      if (typeof value === 'object' && value !== null && !isTotp(value)) {
        // A group: the secrets of the pages of one URL pattern.
        try {
          validateUrlPattern(key);
        } catch (error) {
          throw new ConfigError(
            `Option \`secrets\` key ${JSON.stringify(key)} holds a group of secrets, so it must be a URL pattern: ${(error as Error).message}`,
            {
              field: `secrets.${key}`,
            },
          );
        }
        const pattern = wholeSite(key);
        for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
          checkName(name, `secrets.${key}.${name}`);
          this.add({ name, pattern, value: checkValue(inner, `secrets.${key}.${name}`) });
        }
      } else {
        checkName(key, `secrets.${key}`);
        this.add({ name: key, pattern: undefined, value: checkValue(value, `secrets.${key}`) });
      }
    }
  }

  /** Whether there is any secret. */
  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** The names the model may use on the page at `url`, in the order they were given. */
  namesFor(url: string | undefined): string[] {
    const names = this.entries
      .filter((entry) => entry.pattern === undefined || (url !== undefined && matchesUrlPattern(url, entry.pattern)))
      .map((entry) => entry.name);
    return [...new Set(names)];
  }

  /** Whether `value` holds a placeholder anywhere (in a string, an array, an object). */
  static holdsPlaceholder(value: unknown): boolean {
    if (typeof value === 'string') return new RegExp(placeholderPattern.source).test(value);
    if (Array.isArray(value)) return value.some((item) => SecretStore.holdsPlaceholder(item));
    if (typeof value === 'object' && value !== null) return Object.values(value).some((item) => SecretStore.holdsPlaceholder(item));
    return false;
  }

  /**
   * `value` with each placeholder replaced by the secret's value for the page at `url`.
   * @throws `ActionError` (recoverable) naming a secret that does not exist, or is not for this page.
   */
  async substitute(value: unknown, url: string, action: string): Promise<{ readonly value: unknown; readonly used: readonly string[] }> {
    const used = new Set<string>();
    const walk = async (item: unknown): Promise<unknown> => {
      if (typeof item === 'string') {
        let text = '';
        let last = 0;
        for (const match of item.matchAll(new RegExp(placeholderPattern.source, 'g'))) {
          const name = match[1] as string;
          text += item.slice(last, match.index) + (await this.valueFor(name, url, action));
          last = match.index + match[0].length;
          used.add(name);
        }
        return last === 0 ? item : text + item.slice(last);
      }
      if (Array.isArray(item)) return Promise.all(item.map(walk));
      if (typeof item === 'object' && item !== null) {
        return Object.fromEntries(await Promise.all(Object.entries(item).map(async ([key, inner]) => [key, await walk(inner)] as const)));
      }
      return item;
    };
    return { value: await walk(value), used: [...used] };
  }

  /**
   * Every known value in `text` replaced by its placeholder: whole or any piece of it (see
   * `Redactor`), in any case, spaced out, percent-, form-, HTML-, JSON- or base64-encoded.
   */
  redact(text: string): string {
    const redaction = this.redaction;
    if (!redaction || !text) return text;
    return redaction.redact(text);
  }

  /**
   * Segments of one text (a page's texts in document order) redacted as one: a value split over
   * segments is found, its placeholder put where it starts. The same segments when there is no value.
   */
  redactJoined(segments: readonly string[], options?: JoinedRedactionOptions): string[] {
    return this.redaction ? this.redaction.redactJoined(segments, options) : [...segments];
  }

  /** How much longer than the limit page text must be read so that a value at a cut is seen whole; 0 with no value. */
  get redactionMargin(): number {
    return this.redaction?.margin ?? 0;
  }

  /** A copy of `value` with every string redacted; an `Error` keeps its class, with its message, stack and causes redacted. */
  redactDeep<T>(value: T): T {
    if (this.redaction === undefined) return value;
    return this.redactValue(value, new WeakMap()) as T;
  }

  private redactValue(value: unknown, seen: WeakMap<object, unknown>): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return seen.get(value);
    if (value instanceof Error) {
      // In place: an error is an identity (`isInstance`, `instanceof`), and nothing of the value may stay in it.
      seen.set(value, value);
      value.message = this.redact(value.message);
      if (value.stack) value.stack = this.redact(value.stack);
      for (const key of Object.keys(value)) {
        const record = value as unknown as Record<string, unknown>;
        record[key] = this.redactValue(record[key], seen);
      }
      if (value.cause !== undefined) value.cause = this.redactValue(value.cause, seen);
      return value;
    }
    if (value instanceof Map) {
      // Maps hold binary parts (screenshots) and states' elements: their strings are not page text.
      return value;
    }
    if (ArrayBuffer.isView(value)) return value;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(this.redactValue(item, seen));
      return copy;
    }
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) copy[key] = this.redactValue(item, seen);
    return copy;
  }

  private add(entry: Entry): void {
    this.entries.push(entry);
    if (typeof entry.value === 'string') this.remember(entry.name, entry.value);
  }

  /** Adds a value to what is redacted (a function's or a TOTP code, once used). */
  private remember(name: string, value: string): void {
    if (value.length < minimumLength) return;
    let values = this.known.get(name);
    if (!values) this.known.set(name, (values = new Set()));
    if (values.has(value)) return;
    values.add(value);
    this.redaction = new Redactor([...this.known].flatMap(([owner, set]) => [...set].map((known) => ({ name: owner, value: known }))));
  }

  private async valueFor(name: string, url: string, action: string): Promise<string> {
    const candidates = this.entries.filter((entry) => entry.name === name);
    if (candidates.length === 0) {
      const names = this.namesFor(url);
      throw new ActionError(action, `There is no secret named "${name}"${names.length > 0 ? `; the secrets of this page are ${names.join(', ')}` : ''}.`);
    }
    const entry = candidates.find((candidate) => candidate.pattern === undefined || matchesUrlPattern(url, candidate.pattern));
    if (!entry) throw new ActionError(action, `The secret "${name}" is not available on this page: it is only for other sites. Do not use it here.`);
    const value = await resolve(entry.value);
    if (typeof value !== 'string' || value.length === 0) throw new ActionError(action, `The secret "${name}" has no value right now.`);
    this.remember(name, value);
    return value;
  }
}

/**
 * A URL glob written as an origin alone (`https://*.bank.example`) stands for every page of it
 * here: a login is rarely on the root page. With a path, the pattern is as written.
 */
function wholeSite(pattern: string): string {
  const trimmed = pattern.trim();
  return /^[a-z][a-z\d+.-]*:\/\/[^/?#]*$/i.test(trimmed) ? `${trimmed}/*` : trimmed;
}

async function resolve(value: SecretValue): Promise<string> {
  if (typeof value === 'string') return value;
  if (typeof value === 'function') return value();
  return new TOTP({ secret: value.totp, digits: value.digits ?? 6, period: value.period ?? 30, algorithm: value.algorithm ?? 'SHA1' }).generate();
}
