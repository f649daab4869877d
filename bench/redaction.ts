// Secret redaction: its cost on a 100 kB text and on a snapshot-sized list of segments, and its
// false alarms on real page text (the readability corpus) with secrets of ordinary shapes.
// Run with `npx tsx bench/redaction.ts`; it prints a table and writes nothing.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretStore } from '../src/security/secrets';

const corpus = join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus', 'readability');

/** Median and fastest milliseconds of `runs` calls of `work`, after five warm-up calls (the fastest is what a quiet machine gives). */
function median(work: () => void, runs = 15): string {
  for (let warm = 0; warm < 5; warm++) work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return `${(times[Math.floor(times.length / 2)] as number).toFixed(2)} ms (fastest ${(times[0] as number).toFixed(2)} ms)`;
}

/** A page's visible-ish text: tags, scripts and styles dropped, entities left as they are. */
function textOf(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

const pages = readdirSync(corpus)
  .filter((name) => name.endsWith('.html'))
  .map((name) => textOf(readFileSync(join(corpus, name), 'utf8')));
const all = pages.join(' ');
const text100k = all.slice(0, 100_000);

// Secrets of ordinary shapes: a password, a user name that is an e-mail, a passphrase, an API key, an OTP, a PIN.
const shapes = {
  password: 'Tr0ub4dor&3',
  user: 'ada.lovelace@analytical.example',
  passphrase: 'correct-horse-battery-staple',
  apiKey: 'sk-live-4f9a8b7c6d5e4f3a2b1c',
  otp: '657123',
  pin: '4821',
};
const store = new SecretStore(shapes);
const many = new SecretStore(Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`key${index}`, `Zx${index}q9Wv${index * 7}Lp3Rt`])));

const segments = text100k.match(/.{1,20}/g) ?? [];
const rows: [string, string][] = [
  ['redact(), 100 kB of page text, 6 secrets', median(() => store.redact(text100k))],
  ['redact(), 100 kB of page text, 20 secrets', median(() => many.redact(text100k))],
  [`redactJoined(), ${segments.length} segments (100 kB), 6 secrets`, median(() => store.redactJoined(segments))],
  ['redact(), 100 kB with no secret configured', median(() => new SecretStore({}).redact(text100k))],
];

// False alarms: every placeholder in the corpus text is one, since none of these values is in it.
let alarms = 0;
const examples: string[] = [];
for (const page of pages) {
  const redacted = store.redact(page);
  for (const match of redacted.matchAll(/<secret>(\w+)<\/secret>/g)) {
    alarms++;
    if (examples.length < 5) examples.push(`${match[1]} near "${redacted.slice(Math.max(0, match.index - 30), match.index + 40)}"`);
  }
}
rows.push([`false alarms on ${pages.length} corpus pages (${(all.length / 1e6).toFixed(1)} M characters), 6 secrets`, String(alarms)]);

console.log('| measure | result |\n|---|---|');
for (const [measure, result] of rows) console.log(`| ${measure} | ${result} |`);
for (const example of examples) console.log(`- ${example}`);
