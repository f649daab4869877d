// Finds a recorded element again among the elements of a page that changed since: an exact match
// on a stable identifying attribute first, else a weighted similarity score. Pure: no browser, no I/O.

// The generated-id heuristic and the test-id list are the page runtime's, so that the CSS path the
// page writes and the keys matched here agree on which ids are stable (both are plain string code).
import { looksGeneratedId, testIdAttributes } from '../dom/page/fingerprint';
import { ConfigError } from '../errors';
import type { ElementFingerprint } from '../history/types';
import {
  ancestorSimilarity,
  attributeSimilarity,
  boxSimilarity,
  centreDistance,
  contextAgreement,
  contextNames,
  contextSimilarity,
  type NamedAncestor,
  normalized,
  pathSimilarity,
  rounded,
  shown,
  similarity,
  stableAttributes,
} from './similarity';

/** An element of the page replay reads now, with the index the snapshot gave it. */
export interface MatchCandidate {
  /** The element's index in the current snapshot. */
  readonly index: number;
  /** Its fingerprint, read from the page now. */
  readonly fingerprint: ElementFingerprint;
}

/** Options of {@link matchElement}. */
export interface MatchOptions {
  /**
   * The lowest score, from 0 to 1, at which the most similar element is taken for the recorded
   * one. Lower heals more changes and risks the wrong element; higher sends more steps back to the model.
   * @defaultValue 0.6
   * @example
   * ```ts
   * matchElement(recorded, candidates, { threshold: 0.75 });
   * ```
   */
  readonly threshold?: number | undefined;
  /**
   * How close, from 0 to 1, the two best scores may be before the match is ambiguous, unless the
   * elements' names, text, attributes or context tell them apart.
   * @defaultValue 0.05
   */
  readonly margin?: number | undefined;
  /**
   * Whether the browser is on another page than the one the element was recorded on (another
   * URL). Then an element that sat in no record is checked against the heading of its page too:
   * the "Add to cart" of another product's page is another product's.
   * @defaultValue false
   */
  readonly pageMoved?: boolean | undefined;
}

/** A candidate as the matcher scored it. */
export interface ScoredMatch {
  /** The candidate's index. */
  readonly index: number;
  /** Its similarity to the recorded element, from 0 to 1. */
  readonly score: number;
  /** What differs from the recorded element, in words (`id changed from add-3 to buy-3`, `moved 120px`). */
  readonly differences: readonly string[];
}

/**
 * Where the recorded element is on the page now. `exact`: a stable identifying attribute (a test
 * id, a written id, a field's name, a link's target) finds one element, which agrees on tag, name
 * and context. `healed`: no such attribute did, but one element is similar enough and clearly the
 * most similar. `none`: no element is; `reason` says why, and `best` is the closest one, if any.
 */
export type ElementMatch =
  | { readonly kind: 'exact'; readonly index: number }
  | ({ readonly kind: 'healed' } & ScoredMatch)
  | { readonly kind: 'none'; readonly reason: string; readonly best?: ScoredMatch | undefined };

const defaultThreshold = 0.6;
const defaultMargin = 0.05;

/**
 * The weight of each feature in the score. Features the recorded element lacks (no name, no box)
 * are left out and the rest keep their proportions. What the element is (tag, role, name) and
 * where it sits in the page's content (its named ancestors) weigh most; its exact position least,
 * as positions are what a changed page changes first.
 */
const weights = {
  tagName: 0.1,
  role: 0.05,
  name: 0.25,
  text: 0.08,
  attributes: 0.12,
  ancestors: 0.28,
  xpath: 0.05,
  cssPath: 0.03,
  box: 0.04,
} as const;
type Feature = keyof typeof weights;

/** The features that say what the element is and shows, not where it is: what tells two close scores apart. */
const evidenceFeatures: readonly Feature[] = ['name', 'text', 'attributes', 'ancestors'];

/** The features that say where the element is. */
const positionFeatures: readonly Feature[] = ['xpath', 'cssPath', 'box'];
/** How much closer in position one of two close scores must be to be told apart by it: the same place, against another one. */
const positionMargin = 0.2;

/** How similar two names must be for elements to look alike, or for a name to agree. */
const alikeSimilarity = 0.8;

/** The tags whose `name` attribute names a form field. */
const fieldTags = new Set(['input', 'select', 'textarea', 'button']);
/** Input types that take typed text: one kind of field, whichever of them a redesign picks. */
const textTypes = new Set(['', 'text', 'email', 'tel', 'url', 'search', 'password', 'number']);
/** What kind of field an element is: `text` for the typed-text inputs and textareas, else its tag and type. */
function fieldKind(print: ElementFingerprint): string {
  const type = print.attributes.type ?? '';
  if (print.tagName === 'textarea' || (print.tagName === 'input' && textTypes.has(type))) return 'text';
  return `${print.tagName}/${type}`;
}

/** The fields that take a value: found by their `name` even when relabelled. */
const formFieldTags = new Set(['input', 'select', 'textarea']);

/**
 * Finds the recorded element among `candidates` (the elements of the page now, fingerprinted).
 *
 * 1. Exact: a stable attribute of the recorded element (a test id, then an id that does not look
 *    generated, a form field's `name` with its tag, a link's `href`) is carried by exactly one
 *    candidate, and that candidate has the same tag, a name or text that agrees, and the same
 *    context (its nearest named ancestor, such as the product card's heading), so an id a list
 *    gives by position is not taken for the element now in that position.
 * 2. Scored: each candidate gets a weighted similarity in [0, 1] over tag, role, accessible name
 *    and text (word and edit-distance similarity), identifying attributes, ancestors (their names
 *    most), XPath, CSS path and distance. When several candidates look like the element itself
 *    (same tag, a similar name: the "Add to cart" of every card), its context decides: a candidate
 *    in another context is not taken.
 * 3. The best scores at least `threshold` and leads the next by more than `margin`, or is told
 *    apart by its name, text, attributes or context, or is clearly nearer the recorded place
 *    (same path and box against another): `healed`. Otherwise `none`, with the reason.
 * @throws `ConfigError` when `threshold` or `margin` is not a number from 0 to 1.
 */
export function matchElement(recorded: ElementFingerprint, candidates: readonly MatchCandidate[], options: MatchOptions = {}): ElementMatch {
  const threshold = fraction(options.threshold, defaultThreshold, 'threshold');
  const margin = fraction(options.margin, defaultMargin, 'margin');
  if (candidates.length === 0) return { kind: 'none', reason: 'the page has no elements to match' };

  const recordedContext = contextNames(recorded);
  const identity = recordIdentity(recorded, options.pageMoved === true);
  const exact = exactMatch(recorded, recordedContext, identity, candidates);
  if (exact) return { kind: 'exact', index: exact.index };

  const scored = candidates.map((candidate) => compare(recorded, recordedContext, identity, candidate)).sort((a, b) => b.score - a.score);
  const [best] = scored;
  if (!best) return { kind: 'none', reason: 'the page has no elements to match' };
  const describe = (entry: Comparison): ScoredMatch => ({
    index: entry.candidate.index,
    score: rounded(entry.score),
    differences: differencesOf(recorded, recordedContext, identity, entry.candidate.fingerprint),
  });

  const healedSole = (sole: Comparison): ElementMatch => {
    const described = describe(sole);
    return { kind: 'healed', ...described, differences: [...described.differences, soleNote()] };
  };
  /** `first` (at the threshold or above) healed, unless `second` is as good and nothing tells them apart. */
  const pick = (first: Comparison, second: Comparison | undefined, told: 'record' | 'context'): ElementMatch => {
    const close = second !== undefined && second.score >= threshold && first.score - second.score <= margin;
    if (close && first.evidence - second.evidence <= margin && first.position - second.position <= positionMargin) {
      return {
        kind: 'none',
        reason: `ambiguous: elements ${first.candidate.index} and ${second.candidate.index} score ${rounded(first.score)} and ${rounded(second.score)}, and neither their names, text, attributes, ${told} nor place tell them apart`,
        best: describe(first),
      };
    }
    return { kind: 'healed', ...describe(first) };
  };

  // A record's identity is never crossed: an element of another card, row or item (or, on
  // another page, of another page) is another record's, however alike it is. Only elements of the
  // recorded record, or of none that could be another, are eligible.
  if (identity) {
    const own = scored.filter((entry) => entry.sameRecord !== false);
    const [first, second] = own;
    const crossed = scored.find((entry) => entry.sameRecord === false && entry.score >= threshold);
    const sole = first && first.score < threshold ? soleInPlace(recorded, own) : undefined;
    if (sole) return healedSole(sole);
    if (!first || first.score < threshold) {
      if (crossed) {
        const theirs = crossed.candidate.fingerprint;
        return {
          kind: 'none',
          reason: `its ${identity.scope === 'item' ? 'record' : 'page'} ${shown(identity.name)} is not on the page: the closest element, ${crossed.candidate.index} ${shown(theirs.name || theirs.text)}, scores ${rounded(crossed.score)} but belongs to ${shown(recordName(theirs) ?? 'another record')}`,
          best: describe(crossed),
        };
      }
      return {
        kind: 'none',
        reason: `no element is similar enough: the closest, element ${best.candidate.index} ${shown(best.candidate.fingerprint.name || best.candidate.fingerprint.text)}, scores ${rounded(best.score)}, below the threshold ${threshold}`,
        best: describe(best),
      };
    }
    return pick(first, second, 'record');
  }

  // An element that looks like the recorded one (same tag, a similar name) is that element only in
  // its recorded context: the "Add to cart" of another card is another product's, even when the
  // recorded card is gone and only one other is left.
  const alike = scored.filter((entry) => entry.alike).length;
  // Only for a fingerprint that gives no record (read by an older runtime): its nearest named ancestor stands for it.
  const nearest = recorded.record ? undefined : recordedContext[0];
  const eligible = alike >= 1 && nearest ? scored.filter((entry) => entry.context >= contextSimilarity) : scored;
  const [first, second] = eligible;
  const sole = !first || first.score < threshold ? soleInPlace(recorded, eligible) : undefined;
  if (sole) return healedSole(sole);
  if (!first || first.score < threshold) {
    if (nearest && alike >= 1 && best.score >= threshold) {
      return {
        kind: 'none',
        reason: `its context ${shown(nearest.name)} is not on the page: ${alike} elements look like it, none inside it`,
        best: describe(best),
      };
    }
    return {
      kind: 'none',
      reason: `no element is similar enough: the closest, element ${best.candidate.index}, scores ${rounded(best.score)}, below the threshold ${threshold}`,
      best: describe(best),
    };
  }
  return pick(first, second, 'context');
}

/** The lowest score at which the one element of the recorded kind at the recorded place is taken, its words changed (translated). */
const soleFloor = 0.45;

/** An element's kind: tag, role and type (a submit button, a checkbox). */
const kindOf = (print: ElementFingerprint): string => `${print.tagName}/${print.role ?? ''}/${print.attributes.type ?? ''}`;
/** An XPath without its positions: the place in the page's structure. */
const placeOf = (xpath: string): string => xpath.replace(/\[\d+\]/g, '');

/**
 * The one submit button of the recorded form: a submit button recorded inside a form, when the
 * page has one submit button only at the same place (the same path, positions aside) and it scores
 * at least `soleFloor`: sending the form is all it can do, whatever its label says now (translated).
 * Undefined otherwise.
 */
function soleInPlace(recorded: ElementFingerprint, pool: readonly Comparison[]): Comparison | undefined {
  if (recorded.attributes.type !== 'submit' || !/\/form(\[\d+\])?\//.test(recorded.xpath)) return undefined;
  const kind = kindOf(recorded);
  const ofKind = pool.filter((entry) => kindOf(entry.candidate.fingerprint) === kind);
  if (ofKind.length !== 1) return undefined;
  const [only] = ofKind;
  if (!only || only.score < soleFloor || placeOf(only.candidate.fingerprint.xpath) !== placeOf(recorded.xpath)) return undefined;
  return only;
}

function soleNote(): string {
  return `the only submit button of its form`;
}

function fraction(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(`Option \`${field}\` of matchElement must be a number from 0 to 1, got ${String(value)}.`, { field });
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Exact match

/** The stable keys of an element, strongest first, as (attribute, value, tags it applies to). */
function stableKeys(print: ElementFingerprint): { readonly attribute: string; readonly value: string; readonly sameTag: boolean }[] {
  const keys: { attribute: string; value: string; sameTag: boolean }[] = [];
  const { attributes, tagName } = print;
  for (const attribute of testIdAttributes) {
    const value = attributes[attribute];
    if (value) keys.push({ attribute, value, sameTag: false });
  }
  if (attributes.id && !looksGeneratedId(attributes.id)) keys.push({ attribute: 'id', value: attributes.id, sameTag: false });
  if (attributes.name && fieldTags.has(tagName)) keys.push({ attribute: 'name', value: attributes.name, sameTag: true });
  if (attributes.href && (tagName === 'a' || tagName === 'area')) keys.push({ attribute: 'href', value: attributes.href, sameTag: true });
  return keys;
}

function exactMatch(
  recorded: ElementFingerprint,
  recordedContext: readonly NamedAncestor[],
  identity: RecordIdentity | undefined,
  candidates: readonly MatchCandidate[],
): MatchCandidate | undefined {
  for (const key of stableKeys(recorded)) {
    const found = candidates.filter(
      ({ fingerprint }) => fingerprint.attributes[key.attribute] === key.value && (!key.sameTag || fingerprint.tagName === recorded.tagName),
    );
    if (found.length !== 1) continue;
    const [only] = found;
    // A field by its `name` and a link by its target are what the server gets and where the browser goes, whatever their label says now.
    const byPurpose = (key.attribute === 'name' && formFieldTags.has(recorded.tagName)) || key.attribute === 'href';
    if (only && agrees(recorded, recordedContext, identity, only.fingerprint, byPurpose)) return only;
  }
  return undefined;
}

/** Same tag, a name or text that agrees, and the same record (else the same context, when the recorded element had one). */
function agrees(
  recorded: ElementFingerprint,
  recordedContext: readonly NamedAncestor[],
  identity: RecordIdentity | undefined,
  candidate: ElementFingerprint,
  byFieldName = false,
): boolean {
  if (candidate.tagName !== recorded.tagName) return false;
  // A form field found by its `name` is the field the server gets under that name, and a link found
  // by its one target goes where the recorded one went, whatever their label says now (translated,
  // reworded): the same kind of element in the same record is enough.
  if (byFieldName) {
    // Another kind of field under the recorded name (a checkbox for a text field) is not it.
    if (fieldKind(candidate) !== fieldKind(recorded)) return false;
    return identity ? sameRecord(identity, candidate) : true;
  }
  const named = similarity(recorded.name, candidate.name) >= alikeSimilarity || similarity(recorded.text, candidate.text) >= alikeSimilarity;
  if (!named) return false;
  if (identity) return sameRecord(identity, candidate);
  // A fingerprint that gives its record (or its page's heading) was read by a runtime that names
  // records: its nearest named ancestor (a form named by all its text) is no identity.
  if (recorded.record) return true;
  return contextAgreement(recordedContext, contextNames(candidate)) >= contextSimilarity;
}

// ---------------------------------------------------------------------------------------------
// Record identity

/** The identity a candidate must share: the recorded element's record, or its page's when the page moved. */
interface RecordIdentity {
  readonly name: string;
  readonly scope: 'item' | 'page';
}

/** How alike two record names must be to name the same record: a product's name, reworded at most by case, spaces or punctuation. */
const recordSimilarity = 0.85;

function recordIdentity(recorded: ElementFingerprint, pageMoved: boolean): RecordIdentity | undefined {
  const record = recorded.record;
  if (!record || !normalized(record.name)) return undefined;
  if (record.scope === 'page' && !pageMoved) return undefined;
  return { name: record.name, scope: record.scope };
}

/** The name of the record a fingerprint gives, when it gives one. */
function recordName(print: ElementFingerprint): string | undefined {
  return print.record?.name;
}

/** Lower case, letters and digits only, single spaces. */
function identityKey(value: string): string {
  return normalized(value)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function sameName(a: string, b: string): boolean {
  const left = identityKey(a);
  const right = identityKey(b);
  return left === right || similarity(left, right) >= recordSimilarity;
}

/**
 * Whether the candidate belongs to the recorded record: `true` when its record has the same name,
 * `false` when it has another, `undefined` when it gives none (an element of a redesigned page
 * outside any card): then it counts as the record's when its own name, or an ancestor's, holds the
 * record's name, and as another's otherwise.
 */
function sameRecord(identity: RecordIdentity, candidate: ElementFingerprint): boolean {
  const theirs = candidate.record;
  if (theirs && (identity.scope === 'page' || theirs.scope === 'item')) return sameName(identity.name, theirs.name);
  const key = identityKey(identity.name);
  const holds = (value: string | undefined): boolean => value !== undefined && ` ${identityKey(value)} `.includes(` ${key} `);
  if (identity.scope === 'item') return holds(candidate.name) || holds(candidate.text) || candidate.ancestors.some((ancestor) => holds(ancestor.name));
  return theirs ? sameName(identity.name, theirs.name) : false;
}

// ---------------------------------------------------------------------------------------------
// Scoring

interface Comparison {
  readonly candidate: MatchCandidate;
  /** The weighted similarity over every feature. */
  readonly score: number;
  /** The weighted similarity over the evidence features only. */
  readonly evidence: number;
  /** The weighted similarity over the position features only. */
  readonly position: number;
  /** How well the candidate's context matches the recorded element's nearest one; 1 when it had none. */
  readonly context: number;
  /** Whether the candidate looks like the recorded element by itself: same tag, a similar name. */
  readonly alike: boolean;
  /** Whether it belongs to the recorded record; `undefined` when the recorded element had none. */
  readonly sameRecord: boolean | undefined;
}

function compare(
  recorded: ElementFingerprint,
  recordedContext: readonly NamedAncestor[],
  identity: RecordIdentity | undefined,
  candidate: MatchCandidate,
): Comparison {
  const print = candidate.fingerprint;
  const candidateContext = contextNames(print);
  const features: Partial<Record<Feature, number>> = {
    tagName: recorded.tagName === print.tagName ? 1 : 0,
    role: (recorded.role ?? '') === (print.role ?? '') ? 1 : 0,
    xpath: pathSimilarity(recorded.xpath.split('/'), print.xpath.split('/'), (segment) => segment.replace(/\[\d+\]$/, '')),
  };
  if (recorded.name || print.name) features.name = similarity(recorded.name, print.name);
  if (recorded.text || print.text) features.text = similarity(recorded.text, print.text);
  const attributes = attributeSimilarity(recorded.attributes, print.attributes);
  if (attributes !== undefined) features.attributes = attributes;
  if (recorded.ancestors.length > 0 || print.ancestors.length > 0) features.ancestors = ancestorSimilarity(recorded, recordedContext, print, candidateContext);
  if (recorded.cssPath) {
    features.cssPath = pathSimilarity(recorded.cssPath.split(' > '), print.cssPath.split(' > '), (segment) => segment.replace(/:nth-of-type\(\d+\)$/, ''));
  }
  if (recorded.box && print.box) features.box = boxSimilarity(recorded.box, print.box);
  return {
    candidate,
    score: weighted(features, Object.keys(weights) as Feature[]),
    evidence: weighted(features, evidenceFeatures),
    position: weighted(features, positionFeatures),
    context: contextAgreement(recordedContext, candidateContext),
    alike: recorded.tagName === print.tagName && similarity(recorded.name || recorded.text, print.name || print.text) >= alikeSimilarity,
    sameRecord: identity ? sameRecord(identity, print) : undefined,
  };
}

/** The weighted mean of the features present among `which`; 0 when none is. */
function weighted(features: Partial<Record<Feature, number>>, which: readonly Feature[]): number {
  let total = 0;
  let weight = 0;
  for (const feature of which) {
    const value = features[feature];
    if (value === undefined) continue;
    total += value * weights[feature];
    weight += weights[feature];
  }
  return weight === 0 ? 0 : total / weight;
}

// ---------------------------------------------------------------------------------------------
// Differences, in words

function differencesOf(
  recorded: ElementFingerprint,
  recordedContext: readonly NamedAncestor[],
  identity: RecordIdentity | undefined,
  candidate: ElementFingerprint,
): string[] {
  const differences: string[] = [];
  if (recorded.tagName !== candidate.tagName) differences.push(`tag changed from ${recorded.tagName} to ${candidate.tagName}`);
  if ((recorded.role ?? '') !== (candidate.role ?? '')) differences.push(`role changed from ${recorded.role ?? 'none'} to ${candidate.role ?? 'none'}`);
  const nameChanged = normalized(recorded.name) !== normalized(candidate.name);
  if (nameChanged) differences.push(`name changed from ${shown(recorded.name)} to ${shown(candidate.name)}`);
  const textIsName = normalized(recorded.text) === normalized(recorded.name) && normalized(candidate.text) === normalized(candidate.name);
  if (normalized(recorded.text) !== normalized(candidate.text) && !(nameChanged && textIsName)) {
    differences.push(`text changed from ${shown(recorded.text)} to ${shown(candidate.text)}`);
  }
  const before = stableAttributes(recorded.attributes);
  const after = stableAttributes(candidate.attributes);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const value = before.get(key);
    const now = after.get(key);
    if (value === now) continue;
    if (value === undefined) differences.push(`${key} ${shown(now ?? '')} added`);
    else if (now === undefined) differences.push(`${key} ${shown(value)} removed`);
    else differences.push(`${key} changed from ${shown(value)} to ${shown(now)}`);
  }
  const nearest = recordedContext[0];
  if (identity) {
    // The record decides, so the record is what is said: a heal never crosses it.
    if (!sameRecord(identity, candidate)) {
      const theirs = recordName(candidate);
      differences.push(
        theirs
          ? `${identity.scope === 'item' ? 'record' : 'page'} changed from ${shown(identity.name)} to ${shown(theirs)}`
          : `${identity.scope === 'item' ? 'record' : 'page'} ${shown(identity.name)} gone`,
      );
    }
  } else if (nearest && !recorded.record) {
    const context = contextNames(candidate);
    if (contextAgreement(recordedContext, context) < 1) {
      const [closest] = context;
      differences.push(closest ? `context changed from ${shown(nearest.name)} to ${shown(closest.name)}` : `context ${shown(nearest.name)} gone`);
    }
  }
  if (recorded.xpath !== candidate.xpath) differences.push(`path changed from ${recorded.xpath} to ${candidate.xpath}`);
  if (recorded.box && candidate.box) {
    const distance = Math.round(centreDistance(recorded.box, candidate.box));
    if (distance >= 1) differences.push(`moved ${distance}px`);
  }
  return differences;
}
