// The strings of an exported Playwright script: every piece of recorded text reaches the script
// as a JSON string literal, a CSS string or line comments written here, never by template
// interpolation, and the values of option `env` become `process.env` reads wherever they appear.
// ScriptWriter holds the lines and their indentation. Used by export-playwright.ts only.

/** A JavaScript string literal of any text: JSON's escapes, and the two line separators JSON leaves raw. */
export function quote(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A CSS string (inside a selector) of any text. */
export function cssString(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&').replace(/[\n\r\f]/g, (character) => `\\${character.charCodeAt(0).toString(16)} `)}"`;
}

/** Line comments of any text: each line of it its own `//` line, so no recorded text can end the comment. */
function commentLines(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => `// ${line}`.trimEnd());
}

/** A value as text: strings as they are, anything else as JSON, long ones cut. */
export function shown(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** How a value of option `env` can appear in recorded text: as typed, or as a URL encodes it. */
type Encoding = 'raw' | 'uri-component' | 'uri' | 'form';

const encoders: Readonly<Record<Encoding, (value: string) => string>> = {
  raw: (value) => value,
  'uri-component': encodeURIComponent,
  // What a URL's parser leaves of a value typed into the address (spaces and non-ASCII encoded).
  uri: encodeURI,
  // What a form submitted with GET puts into the query (`application/x-www-form-urlencoded`).
  form: (value) => new URLSearchParams([['', value]]).toString().slice(1),
};

/** One form of one value in recorded text. */
interface ValueForm {
  readonly text: string;
  readonly name: string;
  readonly encoding: Encoding;
}

/**
 * Every string and comment of the script, so the values of option `env` stay out of all of them:
 * a string literal is split on each value (in each of its forms, longest first) and reads the
 * value from the environment there, so it still evaluates to the recorded text when the
 * variable holds it; comments and titles show `<$NAME>` instead.
 */
export class ScriptStrings {
  private readonly forms: readonly ValueForm[];
  /** Whether a literal read a variable, so the script needs its `variable()` helper. */
  usesVariables = false;
  /** Whether a literal form-encoded a variable, so the script needs its `formEncoded()` helper. */
  usesFormEncoding = false;
  /** Whether a locator matched a name with `named()`, so the script needs that helper. */
  usesNamed = false;

  /** A recorded name as the replay matches it: the whole name, case and spaces aside (`named("Add to cart")`). */
  named(text: string): string {
    this.usesNamed = true;
    return `named(${this.literal(text)})`;
  }

  constructor(env: Readonly<Record<string, string>>) {
    const forms = new Map<string, ValueForm>();
    for (const [name, value] of Object.entries(env)) {
      for (const encoding of Object.keys(encoders) as Encoding[]) {
        let text: string;
        try {
          text = encoders[encoding](value);
        } catch {
          continue; // A lone surrogate, which no URL holds encoded (URIError).
        }
        // A form equal to one already known (a value no URL changes) is read the simplest way.
        if (!forms.has(text)) forms.set(text, { text, name, encoding });
      }
    }
    this.forms = [...forms.values()].sort((a, b) => b.text.length - a.text.length);
  }

  /** `text` as pieces of recorded text and the values in it. */
  private split(text: string): (string | ValueForm)[] {
    let parts: (string | ValueForm)[] = [text];
    for (const form of this.forms) {
      parts = parts.flatMap((part) =>
        typeof part === 'string' ? part.split(form.text).flatMap((piece, index) => (index === 0 ? [piece] : [form, piece])) : [part],
      );
    }
    return parts.filter((part) => part !== '');
  }

  /** A string expression that evaluates to `text` at run time: literals, and each value read from the environment. */
  literal(text: string): string {
    const parts = this.split(text);
    if (parts.length === 0) return quote('');
    return parts.map((part) => (typeof part === 'string' ? quote(part) : this.read(part))).join(' + ');
  }

  private read(form: ValueForm): string {
    this.usesVariables = true;
    const variable = `variable(${quote(form.name)})`;
    switch (form.encoding) {
      case 'raw':
        return variable;
      case 'uri-component':
        return `encodeURIComponent(${variable})`;
      case 'uri':
        return `encodeURI(${variable})`;
      case 'form':
        this.usesFormEncoding = true;
        return `formEncoded(${variable})`;
    }
  }

  /** `text` with each value shown as `<$NAME>`: for comments and titles. */
  masked(text: string): string {
    return this.split(text)
      .map((part) => (typeof part === 'string' ? part : `<$${part.name}>`))
      .join('');
  }

  /** A title (of the test or of a step) as a string literal, each value masked. */
  title(text: string): string {
    return quote(this.masked(text));
  }

  /** A value for a comment, as {@link shown}, masked before it is cut (so no start of a value is left). */
  shown(value: unknown, max = 200): string {
    return shown(this.masked(shown(value, Infinity)), max);
  }
}

export const whitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The script's lines, with the indentation of the block being written. */
export class ScriptWriter {
  private readonly lines: string[] = [];
  private depth = 0;

  constructor(private readonly strings: ScriptStrings) {}

  line(text: string): void {
    this.lines.push(text === '' ? '' : `${'  '.repeat(this.depth)}${text}`);
  }

  /** Line comments of `text`, each value of option `env` masked. */
  comment(text: string): void {
    for (const line of commentLines(this.strings.masked(text))) this.line(line);
  }

  block(opening: string, closing: string, body: () => void): void {
    this.line(opening);
    this.depth++;
    body();
    this.depth--;
    this.line(closing);
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
