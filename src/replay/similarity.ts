// How alike two recorded elements are, feature by feature: texts (edit distance and word
// overlap), stable attributes, named ancestors (the element's context), the path in the document
// and the box on the page. Each measure is from 0 to 1; match.ts weighs them into one score.
// Pure: no browser, no I/O.

import { looksGeneratedId } from '../dom/page/fingerprint';
import type { ElementFingerprint, FingerprintAncestor } from '../history/types';

/** How similar a context (a named ancestor) must be to count as the same one. */
export const contextSimilarity = 0.5;

/** The attributes that identify across loads: a generated-looking id is left out, it changes every time. */
export function stableAttributes(attributes: Readonly<Record<string, string>>): Map<string, string> {
  const stable = new Map(Object.entries(attributes));
  const id = stable.get('id');
  if (id !== undefined && looksGeneratedId(id)) stable.delete('id');
  return stable;
}

/** Equal values count 1, changed values half their similarity, an attribute on one side only 0; `undefined` when neither has any. */
export function attributeSimilarity(recorded: Readonly<Record<string, string>>, candidate: Readonly<Record<string, string>>): number | undefined {
  const before = stableAttributes(recorded);
  const after = stableAttributes(candidate);
  const keys = new Set([...before.keys(), ...after.keys()]);
  if (keys.size === 0) return undefined;
  let total = 0;
  for (const key of keys) {
    const value = before.get(key);
    const now = after.get(key);
    if (value === undefined || now === undefined) continue;
    total += value === now ? 1 : similarity(value, now) / 2;
  }
  return total / keys.size;
}

/** An ancestor whose name says where the element is (a card's heading, a form's label), with its depth. */
export interface NamedAncestor {
  /** Its name, as the page gave it. */
  readonly name: string;
  /** Its name for comparing: normalized, the element's own words taken out. */
  readonly key: string;
  readonly depth: number;
}

/**
 * The ancestors' names that give the element a context, nearest first. A container named by its
 * text holds the element's own words too (`Blue mug $9 Add to cart`): they are taken out, as they
 * are the same in every card; an ancestor left with nothing (a wrapper around the button) says nothing.
 */
export function contextNames(print: ElementFingerprint): NamedAncestor[] {
  const own = [...new Set([normalized(print.name), normalized(print.text)])].filter(Boolean).sort((a, b) => b.length - a.length);
  const named: NamedAncestor[] = [];
  print.ancestors.forEach((ancestor, depth) => {
    let key = normalized(ancestor.name ?? '');
    for (const words of own) key = key.split(words).join(' ');
    key = key.replace(/\s+/g, ' ').trim();
    if (key) named.push({ name: ancestor.name ?? '', key, depth });
  });
  return named;
}

/** How well the most similar of the candidate's context names matches one recorded context name. */
function bestAgreement(recorded: NamedAncestor, candidate: readonly NamedAncestor[]): number {
  let best = 0;
  for (const entry of candidate) best = Math.max(best, similarity(recorded.key, entry.key));
  return best;
}

/** How many containers the page may have added between the element and its context. */
const maxAddedContexts = 2;

/**
 * How well the candidate sits in the recorded element's nearest context. The candidate's contexts
 * are read nearest first, passing over containers the recorded element did not have (a wrapper
 * the page added), up to the first it had: an outer container that holds every card (the list,
 * whose text names them all) must not put every card in the recorded one's context.
 */
export function contextAgreement(recordedContext: readonly NamedAncestor[], candidate: readonly NamedAncestor[]): number {
  const [nearest] = recordedContext;
  if (!nearest) return 1;
  let best = 0;
  for (const entry of candidate.slice(0, maxAddedContexts + 1)) {
    best = Math.max(best, similarity(nearest.key, entry.key));
    if (recordedContext.some((known) => similarity(known.key, entry.key) >= contextSimilarity)) break;
  }
  return best;
}

/**
 * Ancestors: their names (each recorded context name against the candidate's best, the nearest
 * counting most), their tags and roles in order (a wrapper added or removed costs one step), and
 * their written ids.
 */
export function ancestorSimilarity(
  recorded: ElementFingerprint,
  recordedContext: readonly NamedAncestor[],
  candidate: ElementFingerprint,
  candidateContext: readonly NamedAncestor[],
): number {
  const signature = (ancestor: FingerprintAncestor): string => `${ancestor.tagName}/${ancestor.role ?? ''}`;
  const parts: [number, number][] = [[0.25, pathSimilarity(recorded.ancestors.map(signature), candidate.ancestors.map(signature), (segment) => segment)]];
  const stableIds = (print: ElementFingerprint): string[] =>
    print.ancestors.flatMap((ancestor) => (ancestor.id && !looksGeneratedId(ancestor.id) ? [ancestor.id] : []));
  const recordedIds = stableIds(recorded);
  if (recordedIds.length > 0) {
    const candidateIds = new Set(stableIds(candidate));
    parts.push([0.15, recordedIds.filter((id) => candidateIds.has(id)).length / recordedIds.length]);
  }
  if (recordedContext.length > 0) {
    let total = 0;
    let weight = 0;
    recordedContext.forEach((entry, order) => {
      // The nearest context (the card, the row, the dialog) counts twice: it is what tells apart
      // the same control repeated across a list.
      const entryWeight = (order === 0 ? 2 : 1) / (entry.depth + 1);
      total += entryWeight * bestAgreement(entry, candidateContext);
      weight += entryWeight;
    });
    parts.push([0.6, total / weight]);
  } else if (candidateContext.length > 0) {
    parts.push([0.6, 0.5]); // the page gave it a context it did not have: neither for it nor against it
  }
  const weight = parts.reduce((sum, [partWeight]) => sum + partWeight, 0);
  return parts.reduce((sum, [partWeight, value]) => sum + partWeight * value, 0) / weight;
}

/**
 * 1 minus the edit distance between two paths over their length: a step with the same tag at
 * another index (`div[2]` and `div[3]`) costs half, another tag or a step added or removed costs one.
 */
export function pathSimilarity(before: readonly string[], after: readonly string[], tagOf: (segment: string) => string): number {
  const a = before.filter(Boolean);
  const b = after.filter(Boolean);
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  let previous = Array.from({ length: b.length + 1 }, (_, column) => column);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    for (let column = 1; column <= b.length; column++) {
      const left = a[row - 1] ?? '';
      const right = b[column - 1] ?? '';
      const substitution = left === right ? 0 : tagOf(left) === tagOf(right) ? 0.5 : 1;
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, (previous[column - 1] ?? 0) + substitution));
    }
    previous = current;
  }
  return 1 - (previous[b.length] ?? longest) / longest;
}

/** Near and the same size is 1; the score halves about every 170 pixels the centre moved. */
export function boxSimilarity(before: NonNullable<ElementFingerprint['box']>, after: NonNullable<ElementFingerprint['box']>): number {
  const distance = centreDistance(before, after);
  const ratio = (x: number, y: number): number => (Math.max(x, y) === 0 ? 1 : Math.min(x, y) / Math.max(x, y));
  const size = (ratio(before.width, after.width) + ratio(before.height, after.height)) / 2;
  return 0.7 * Math.exp(-distance / 250) + 0.3 * size;
}

export function centreDistance(before: NonNullable<ElementFingerprint['box']>, after: NonNullable<ElementFingerprint['box']>): number {
  const dx = before.x + before.width / 2 - (after.x + after.width / 2);
  const dy = before.y + before.height / 2 - (after.y + after.height / 2);
  return Math.hypot(dx, dy);
}

// ---------------------------------------------------------------------------------------------
// Text similarity

/** Lower case, whitespace folded, the page's cut mark dropped. */
export function normalized(value: string): string {
  return value.replace(/…$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** How long a string the edit distance looks at, so that scoring many candidates stays cheap. */
const maxCompared = 100;
const maxTokens = 30;

/**
 * How alike two texts are, from 0 to 1: the mean of their edit-distance similarity and of their
 * word overlap, where a word counts when it is nearly the same (`filters` and `filter`). Two empty texts are alike.
 */
export function similarity(a: string, b: string): number {
  const left = normalized(a);
  const right = normalized(b);
  if (left === right) return 1;
  if (!left || !right) return 0;
  return (editSimilarity(left.slice(0, maxCompared), right.slice(0, maxCompared)) + wordSimilarity(words(left), words(right))) / 2;
}

function words(value: string): string[] {
  return value
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, maxTokens);
}

/** The Dice overlap of two word lists, each word matched once to its most similar word (if at least 75% alike). */
function wordSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const unused = new Set(b.map((_, position) => position));
  let matched = 0;
  for (const word of a) {
    let bestPosition = -1;
    let bestScore = 0;
    for (const position of unused) {
      const score = editSimilarity(word, b[position] ?? '');
      if (score > bestScore) {
        bestScore = score;
        bestPosition = position;
      }
    }
    if (bestPosition >= 0 && bestScore >= 0.75) {
      unused.delete(bestPosition);
      matched += bestScore;
    }
  }
  return (2 * matched) / (a.length + b.length);
}

/** 1 minus the Levenshtein distance over the longer length. */
function editSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  let previous = Array.from({ length: b.length + 1 }, (_, column) => column);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, (previous[column - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return 1 - (previous[b.length] ?? longest) / longest;
}

/** A value in a difference: as it is when it is one short word, else quoted and cut. */
export function shown(value: string): string {
  if (/^[^\s"]{1,60}$/.test(value)) return value;
  const short = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return JSON.stringify(short);
}

export function rounded(score: number): number {
  return Math.round(score * 1000) / 1000;
}
