// Server-Sent Events for the run page: the framing of one message (pure, unit-tested) and the hub
// that keeps the session's messages, so a page that connects late or reloads sees the whole run.

import type { ServerResponse } from 'node:http';

/** One message as the page's EventSource receives it: `type` is the SSE event name, `data` JSON. */
export interface PageMessage {
  readonly type: string;
  readonly data: unknown;
}

/**
 * One Server-Sent Events message: `id:`, `event:` and one `data:` line per line of the JSON (JSON
 * has no raw newline, but a line separator inside a string would still end a field; they are
 * escaped). The event name may hold no newline, colon or space: it is a name, never user text.
 */
export function formatEvent(message: PageMessage, id?: number): string {
  if (!/^[a-z][a-z0-9-]*$/.test(message.type)) throw new Error(`Event names are lowercase words joined by dashes; got ${JSON.stringify(message.type)}.`);
  // JSON.stringify leaves U+2028 and U+2029 as they are; EventSource splits lines only on CR and LF, which JSON always escapes.
  const json = JSON.stringify(message.data ?? null);
  const lines = json.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${message.type}\n${lines.join('')}\n`;
}

/** A comment line: ignored by EventSource, it keeps idle connections open through proxies and sleep. */
export const keepAliveComment = ': keep-alive\n\n';

/** Options of {@link EventHub}. */
export interface EventHubOptions {
  /** Milliseconds between keep-alive comments on each open stream. @defaultValue 15000 */
  readonly keepAliveMs?: number | undefined;
  /** How many kept messages a late page is sent at most; older ones are dropped. @defaultValue 5000 */
  readonly maxKept?: number | undefined;
}

/**
 * The open event streams and the messages of the session so far. `publish` keeps a message and
 * sends it to every stream; `publishTransient` sends without keeping (live frames: only the
 * latest matters, and it is kept apart). A new stream first gets every kept message.
 */
export class EventHub {
  private readonly streams = new Set<ServerResponse>();
  private readonly kept: { id: number; text: string }[] = [];
  private latestTransient = new Map<string, string>();
  private nextId = 1;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly maxKept: number;

  constructor(options: EventHubOptions = {}) {
    this.maxKept = options.maxKept ?? 5000;
    this.keepAlive = setInterval(() => {
      for (const stream of this.streams) stream.write(keepAliveComment);
    }, options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
  }

  /** How many streams are open. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Takes over a response as an event stream: headers, then `first` (what the page resets its view
   * to), every kept message, and the latest transient ones.
   */
  attach(response: ServerResponse, headers: Readonly<Record<string, string>> = {}, first: readonly PageMessage[] = []): void {
    response.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    // The page asks once; a dropped connection is re-opened by EventSource, which then gets everything again.
    response.write('retry: 1000\n\n');
    for (const message of first) response.write(formatEvent(message));
    for (const { text } of this.kept) response.write(text);
    for (const text of this.latestTransient.values()) response.write(text);
    this.streams.add(response);
    response.on('close', () => this.streams.delete(response));
  }

  /** Keeps a message and sends it to every open stream. */
  publish(message: PageMessage): void {
    const id = this.nextId++;
    const text = formatEvent(message, id);
    this.kept.push({ id, text });
    if (this.kept.length > this.maxKept) this.kept.splice(0, this.kept.length - this.maxKept);
    for (const stream of this.streams) stream.write(text);
  }

  /** Sends a message without keeping it, except as the latest of its type (for a page that connects later). */
  publishTransient(message: PageMessage): void {
    const text = formatEvent(message);
    this.latestTransient.set(message.type, text);
    for (const stream of this.streams) stream.write(text);
  }

  /** Forgets the kept messages (a new run starts a new page); open streams stay. */
  clear(): void {
    this.kept.length = 0;
    this.latestTransient = new Map();
  }

  /** Ends every stream and the keep-alive timer. */
  close(): void {
    clearInterval(this.keepAlive);
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }
}
