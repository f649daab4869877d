// Text as the model reads it: whitespace folded, long lines cut, and an element's text kept in
// lines (block boundaries and <br> start a new line). Runs in the page; pure string work.

/** Folds runs of whitespace into one space and trims. */
export function collapse(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** Cuts a value to `limit` characters, marking the cut with `…`; never splits a surrogate pair. */
export function cap(value: string, limit: number): string {
  if (value.length <= limit) return value;
  let end = limit;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${value.slice(0, end)}…`;
}

/**
 * Collects text runs into lines. Runs join as the page writes them (`<b>Grav</b>ida.` reads
 * `Gravida.`: a space between them is the page's own); `space()` separates boxes laid out side by
 * side (table cells, inline blocks, flex items), `lineBreak()` ends the current line.
 */
export class LineBuffer {
  private readonly lines: string[] = [];
  private current: string[] = [];

  /** Adds a run of text to the current line, with its own whitespace. */
  add(text: string): void {
    this.current.push(text);
  }

  /** Separates what comes next from what came before on the same line. */
  space(): void {
    if (this.current.length > 0) this.current.push(' ');
  }

  /** Ends the current line (a block boundary or a `<br>`); empty lines are dropped. */
  lineBreak(): void {
    if (this.current.length === 0) return;
    const line = collapse(this.current.join(''));
    this.current = [];
    if (line) this.lines.push(line);
  }

  /** True when no text was added since the last `take()`. */
  get empty(): boolean {
    return this.lines.length === 0 && this.current.every((part) => !part.trim());
  }

  /** The lines so far, each cut to `limit` characters, and a fresh start. */
  take(limit: number): string[] {
    this.lineBreak();
    const lines = this.lines.splice(0).map((line) => cap(line, limit));
    return lines;
  }
}
