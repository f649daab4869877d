import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { ActionError, ConfigError } from '../errors';
import { SecretStore } from './secrets';

const store = (): SecretStore =>
  new SecretStore({
    apiKey: 'k3y-Value/42 "x"',
    'https://*.bank.example': { user: 'ada.lovelace', password: 'p@ss w0rd&<>' },
    'https://mail.example': { user: 'grace' },
  });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error,
  );
}

describe('SecretStore', () => {
  it('names the secrets of a page: flat ones everywhere, bound ones on their pages only', () => {
    const secrets = store();
    expect(secrets.namesFor('https://www.bank.example/login')).toEqual(['apiKey', 'user', 'password']);
    expect(secrets.namesFor('https://mail.example')).toEqual(['apiKey', 'user']);
    expect(secrets.namesFor('https://elsewhere.example/')).toEqual(['apiKey']);
  });

  it('puts the value in for the page acted on, and refuses a secret that is not for it', async () => {
    const secrets = store();
    const typed = await secrets.substitute({ index: 3, text: '<secret>user</secret>' }, 'https://www.bank.example/login', 'input_text');
    expect(typed).toEqual({ value: { index: 3, text: 'ada.lovelace' }, used: ['user'] });
    expect((await secrets.substitute({ text: 'name: <secret> user </secret>!' }, 'https://mail.example', 'input_text')).value).toEqual({
      text: 'name: grace!',
    });
    const elsewhere = await rejection(secrets.substitute({ text: '<secret>password</secret>' }, 'https://evil.example/', 'input_text'));
    expect(ActionError.isInstance(elsewhere)).toBe(true);
    expect(elsewhere.message).toBe('The secret "password" is not available on this page: it is only for other sites. Do not use it here.');
    const unknown = await rejection(secrets.substitute({ text: '<secret>pin</secret>' }, 'https://mail.example', 'input_text'));
    expect(unknown.message).toBe('There is no secret named "pin"; the secrets of this page are apiKey, user.');
  });

  it('redacts a value raw and percent-, form-, HTML- and JSON-encoded, in any case of hex', () => {
    const secrets = store();
    const password = 'p@ss w0rd&<>';
    const forms = [
      password,
      encodeURIComponent(password),
      encodeURIComponent(password)
        .toLowerCase()
        .replace(/%[0-9a-f]{2}/g, (hex) => hex),
      encodeURIComponent(password).replace(/%20/g, '+'),
      'p@ss w0rd&amp;&lt;&gt;',
      JSON.stringify('k3y-Value/42 "x"').slice(1, -1),
    ];
    for (const form of forms) expect(secrets.redact(`before ${form} after`)).not.toMatch(/w0rd|k3y/);
    expect(secrets.redact(`https://x.example/?pw=${encodeURIComponent(password)}&k=1`)).toBe('https://x.example/?pw=<secret>password</secret>&k=1');
    expect(secrets.redact('{"key":"k3y-Value/42 \\"x\\""}')).toBe('{"key":"<secret>apiKey</secret>"}');
    expect(secrets.redact('nothing here')).toBe('nothing here');
  });

  it('redacts deep copies, and errors in place with their causes', () => {
    const secrets = store();
    const cause = new Error('server said ada.lovelace');
    const error = new ActionError('login', 'could not type ada.lovelace', { cause });
    const copy = secrets.redactDeep({ list: ['ada.lovelace'], error, nested: { url: 'https://b.example/?u=ada.lovelace' } });
    expect(copy.list).toEqual(['<secret>user</secret>']);
    expect(copy.nested.url).toBe('https://b.example/?u=<secret>user</secret>');
    expect(copy.error).toBe(error);
    expect(ActionError.isInstance(copy.error)).toBe(true);
    expect(error.message).toBe('could not type <secret>user</secret>');
    expect(cause.message).toBe('server said <secret>user</secret>');
    expect(error.stack).not.toContain('ada.lovelace');
  });

  it('gives the current TOTP code and a function\u2019s value at use time, and redacts them once used', async () => {
    let calls = 0;
    const secrets = new SecretStore({ otp: { totp: 'JBSWY3DPEHPK3PXP' }, vault: () => Promise.resolve(`vault-${++calls}`) });
    const code = new TOTP({ secret: 'JBSWY3DPEHPK3PXP' }).generate();
    const { value } = await secrets.substitute({ text: '<secret>otp</secret>' }, 'https://a.example', 'input_text');
    // A code may roll over between the two reads: either is the current one.
    expect([code, new TOTP({ secret: 'JBSWY3DPEHPK3PXP' }).generate()]).toContain((value as { text: string }).text);
    expect(secrets.redact(`code ${(value as { text: string }).text}`)).toBe('code <secret>otp</secret>');
    expect(secrets.redact('vault-1')).toBe('vault-1');
    expect((await secrets.substitute('<secret>vault</secret>', 'https://a.example', 'x')).value).toBe('vault-1');
    expect(secrets.redact('got vault-1')).toBe('got <secret>vault</secret>');
  });

  it('refuses bad names, patterns and values with a ConfigError naming the entry', () => {
    const field = (option: unknown): string | undefined => {
      try {
        new SecretStore(option);
      } catch (error) {
        if (ConfigError.isInstance(error)) return error.field;
        throw error;
      }
      return undefined;
    };
    expect(field({ 'bad name': 'value1' })).toBe('secrets.bad name');
    expect(field({ short: 'ab' })).toBe('secrets.short');
    expect(field({ 'not a pattern!': { user: 'someone' } })).toBe('secrets.not a pattern!');
    expect(field({ otp: { totp: '!!!' } })).toBe('secrets.otp');
    expect(field({ n: 5 })).toBe('secrets.n');
    expect(field(['x'])).toBe('secrets');
    expect(new SecretStore(undefined).isEmpty).toBe(true);
  });
});

/** Every piece of 6 characters of `value` found in `text`, ignoring case. */
function pieces(text: string, value: string): string[] {
  const haystack = text.toLowerCase();
  const found = new Set<string>();
  for (let start = 0; start + 6 <= value.length; start++) {
    const piece = value.slice(start, start + 6).toLowerCase();
    if (haystack.includes(piece)) found.add(piece);
  }
  return [...found];
}

describe('SecretStore redaction of pieces', () => {
  const token = 'Qv7Xk2Lm9Rz4';
  const otp = (): string => '657123';
  const secrets = new SecretStore({ token, otp: '657123', word: 'sunshine-forever', mail: 'ada.lovelace@analytical.example' });

  it('replaces any piece of 6 or more characters of a value, where a cut or a mark left it', () => {
    expect(secrets.redact(`cut here: Xk2Lm9R…`)).toBe('cut here: <secret>token</secret>…');
    expect(secrets.redact(`starts inside: 2Lm9Rz4 and more`)).toBe('starts inside: <secret>token</secret> and more');
    expect(secrets.redact(`mark: Qv7Xk**2Lm9R**z4`)).toBe('mark: <secret>token</secret>');
    // Five characters are not a piece.
    expect(secrets.redact('only Qv7Xk here')).toBe('only Qv7Xk here');
  });

  it('finds a value split over elements, spaced out one character per box, or in another case', () => {
    expect(secrets.redact('Qv7Xk2 Lm9Rz4')).toBe('<secret>token</secret>');
    expect(secrets.redact('code: 6 5 7 1 2 3.')).toBe('code: <secret>otp</secret>.');
    expect(secrets.redact('code: 6-5-7-1-2-3')).toBe('code: <secret>otp</secret>');
    expect(secrets.redact('QV7XK2LM9RZ4 and qv7xk2lm9rz4')).toBe('<secret>token</secret> and <secret>token</secret>');
    expect(secrets.redact('Sunshine Forever')).toBe('<secret>word</secret>');
  });

  it('finds a value and its pieces percent-, HTML-, JSON- and base64-encoded', () => {
    const mail = 'ada.lovelace@analytical.example';
    for (const form of [encodeURIComponent(mail), mail.replace('@', '&#64;'), mail.replace('@', '&commat;'), btoa(mail), btoa(`user:${mail}`)]) {
      expect(pieces(secrets.redact(`x ${form} y`), mail)).toEqual([]);
    }
    expect(secrets.redact(`?q=${encodeURIComponent('Xk2Lm9 Q')}`)).toBe('?q=<secret>token</secret>%20Q');
    expect(secrets.redact(`"\\u0051v7Xk2Lm9Rz4"`)).toBe('"<secret>token</secret>"');
  });

  it('finds a value shown one character per box with a label between the boxes', () => {
    const boxes = Array.from(otp())
      .map((digit, index) => `(field: ${digit}) Digit ${index + 1}`)
      .join(' ');
    const redacted = secrets.redact(`Code: ${boxes} end`);
    expect(redacted).toBe(`Code: (field: <secret>otp</secret>) Digit 1 ${[2, 3, 4, 5, 6].map((n) => `(field: ) Digit ${n}`).join(' ')} end`);
    // Lone characters far apart are not read together.
    const far = Array.from(otp())
      .map((digit) => `${digit} ${'word '.repeat(8)}`)
      .join('');
    expect(secrets.redact(far)).toBe(far);
  });

  it('redacts text split into segments as one text, the placeholder where the value starts', () => {
    expect(secrets.redactJoined(['6', '5', '7', '1', '2', '3'])).toEqual(['<secret>otp</secret>', '', '', '', '', '']);
    expect(secrets.redactJoined(['Pay Qv7Xk', '2Lm9Rz4 now'])).toEqual(['Pay <secret>token</secret>', ' now']);
    expect(secrets.redactJoined(['<p>Qv7X<b>k2Lm</b>9Rz4</p>'], { markup: true })).toEqual(['<p>&lt;secret&gt;token&lt;/secret&gt;</p>']);
  });

  it('leaves ordinary words that are pieces of a value: a piece counts when it has a digit, mixed case or no vowel', () => {
    // Pieces of letters alone ("lovela", "forever") are ordinary words; the whole value still counts.
    expect(secrets.redact('The forever young analytical engine of Ada Lovelace.')).toBe('The forever young analytical engine of Ada Lovelace.');
    expect(secrets.redact('sunshine all day')).toBe('sunshine all day');
    expect(secrets.redact('Mail ADA.LOVELACE@ANALYTICAL.EXAMPLE')).toBe('Mail <secret>mail</secret>');
    // Numbers that share fewer than 6 digits with the code stay.
    expect(secrets.redact('Order 65712, call 123 456')).toBe('Order 65712, call 123 456');
  });

  it('is idempotent: a placeholder is never read as text', () => {
    const store = new SecretStore({ secret: 'secret99x', name: 'Qv7Xk2Lm9Rz4' });
    const once = store.redact('a secret99x b Qv7Xk2Lm9Rz4');
    expect(once).toBe('a <secret>secret</secret> b <secret>name</secret>');
    expect(store.redact(once)).toBe(once);
  });
});
