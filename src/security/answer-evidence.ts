// Where an answer's values stand on the page. A page that shows its user one thing can hide
// another for the agent: text in the background's colour or a 3-pixel font, an image's alt, a
// title, the address, or text encoded so that only a machine reads it. A value the page gives
// only in such places is not the page's word to its user, and an answer that states it is turned
// down. The rule needs no model: it holds whatever the model was made to believe.

import { base64ToBytes } from '../util/base64';

/** The text a person can read on the pages the agent has open, and what only a machine reads there (read by dom/text-evidence.ts). */
export interface AnswerEvidence {
  /** Text a person sees on the active tab's page. */
  readonly seen: string;
  /** Text no person sees: hidden or illegible text, alt, aria-label, titles, tab titles, addresses. */
  readonly unseen: string;
}

/** A value of the answer that the page gives only where no person sees it. */
export interface HiddenClaim {
  /** The value as the answer states it. */
  readonly value: string;
  /** Where it was found: `hidden text` (hidden, illegible, alt, titles, addresses) or `encoded text`. */
  readonly where: 'hidden text' | 'encoded text';
}

/**
 * The values of an answer that can be checked against a page: numbers of two digits or more, with
 * their separators (`11.27`, `1,299`, `2026-12-06`). Words are not checked: an answer may say them
 * in its own way.
 */
export function claimsOf(answer: string): string[] {
  const claims = answer.match(/\d[\d.,:/-]*\d/g) ?? [];
  return [...new Set(claims.map((claim) => claim.replace(/[.,:/-]+$/, '')).filter((claim) => claim.replace(/\D/g, '').length >= 2))];
}

/** Whether `text` holds the value as a whole number (no digit right before or after it). */
function holds(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\d])${escaped}(?![\\d]|[.,]\\d)`).test(text);
}

/** A base64 (or base64url) run as UTF-8 text; undefined when it is not base64. */
function decodeBase64(run: string): string | undefined {
  const standard = run.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (standard.length % 4 === 1) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(standard + '='.repeat((4 - (standard.length % 4)) % 4)));
  } catch {
    return undefined;
  }
}

/** Text only a machine reads out of `text`: runs of base64 and of percent-escapes, decoded. */
export function decodedForms(text: string): string {
  const decoded: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
    const value = decodeBase64(run);
    if (value === undefined) continue;
    // Only what decodes to readable text is text; most long words and ids do not.
    const unreadable = value.match(/[^\p{L}\p{N}\p{P}\p{S} ]/gu)?.length ?? 0;
    const readable = value.length > 0 && unreadable / value.length < 0.1;
    if (readable) decoded.push(value);
  }
  for (const run of text.match(/(?:[^\s%]*%[0-9A-Fa-f]{2})+[^\s%]*/g) ?? []) {
    try {
      decoded.push(decodeURIComponent(run.replace(/\+/g, ' ')));
    } catch {
      // Not a valid escape sequence: nothing to read.
    }
  }
  return decoded.join('\n');
}

/**
 * The values of `answer` that the page gives only where no person sees them: found in the
 * hidden text or in decoded text, and nowhere in what a person reads. A value found nowhere (a
 * sum, a count the agent made) is not one of them.
 */
export function hiddenClaims(answer: string, evidence: AnswerEvidence): HiddenClaim[] {
  const claims = claimsOf(answer);
  if (claims.length === 0) return [];
  const decoded = decodedForms(`${evidence.seen}\n${evidence.unseen}`);
  const found: HiddenClaim[] = [];
  for (const value of claims) {
    if (holds(evidence.seen, value)) continue;
    if (holds(evidence.unseen, value)) found.push({ value, where: 'hidden text' });
    else if (holds(decoded, value)) found.push({ value, where: 'encoded text' });
  }
  return found;
}
