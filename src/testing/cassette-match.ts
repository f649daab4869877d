// What a replay tells when a request has no recorded answer: the closest recorded call, by a
// simple similarity, and the first difference between the two. No IO, no matching itself.

import type { CassetteMessage, CassetteRequest } from './cassette-format';

/** How much of the text either side of the first difference the message shows. */
const excerptRadius = 40;

/** A recorded call as the mismatch report sees it. */
export interface RecordedCandidate {
  readonly request: CassetteRequest;
  /** Its matching key. */
  readonly key: string;
  /** Whether a replay already answered with it. */
  readonly used: boolean;
}

/** The closest recorded call and how the request differs from it. */
export interface Mismatch {
  /** The position in the cassette of the closest recorded call, if there is any. */
  readonly closestCall: number | undefined;
  /** The first difference, undefined when the closest call is the same request (used up). */
  readonly difference: string | undefined;
  /** The report, for the error's message. */
  readonly report: string;
}

/** The text of a message as the report compares it: text parts, and images by media type and hash. */
function messageText(message: CassetteMessage, matchImageData: boolean): string {
  return message.parts
    .map((part) => (part.type === 'text' ? part.text : `[image ${part.mediaType}${matchImageData ? ` sha256:${part.sha256}` : ''}]`))
    .join('\n');
}

function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** The text around `position`, quoted as JSON so line breaks and spaces can be seen. */
function excerpt(text: string, position: number): string {
  const start = Math.max(0, position - excerptRadius);
  const end = Math.min(text.length, position + excerptRadius);
  return `${start > 0 ? '…' : ''}${JSON.stringify(text.slice(start, end))}${end < text.length ? '…' : ''}`;
}

/** A request in a few words: its output's name and its length. */
export function describeRequest(request: CassetteRequest): string {
  const count = request.messages.length;
  return `${request.output?.name ?? 'text output'}, ${count} message${count === 1 ? '' : 's'}`;
}

/** How many leading messages of `a` and `b` are equal, and the length of the text the next one shares. */
function similarity(request: CassetteRequest, recorded: CassetteRequest, matchImageData: boolean): readonly number[] {
  const shorter = Math.min(request.messages.length, recorded.messages.length);
  let leading = 0;
  let shared = 0;
  for (; leading < shorter; leading++) {
    const mine = request.messages[leading] as CassetteMessage;
    const theirs = recorded.messages[leading] as CassetteMessage;
    const [a, b] = [messageText(mine, matchImageData), messageText(theirs, matchImageData)];
    if (mine.role !== theirs.role || a !== b) {
      shared = mine.role === theirs.role ? commonPrefixLength(a, b) : 0;
      break;
    }
  }
  return [request.output?.name === recorded.output?.name ? 1 : 0, leading, shared, -Math.abs(request.messages.length - recorded.messages.length)];
}

function greater(a: readonly number[], b: readonly number[]): boolean {
  for (let index = 0; index < a.length; index++) {
    const [x, y] = [a[index] ?? 0, b[index] ?? 0];
    if (x !== y) return x > y;
  }
  return false;
}

function settingText(value: number | undefined): string {
  return value === undefined ? 'not set' : String(value);
}

/** Where `request` first differs from `recorded`, or undefined when they are the same. */
export function firstDifference(request: CassetteRequest, recorded: CassetteRequest, matchImageData: boolean): string | undefined {
  const shorter = Math.min(request.messages.length, recorded.messages.length);
  for (let index = 0; index < shorter; index++) {
    const mine = request.messages[index] as CassetteMessage;
    const theirs = recorded.messages[index] as CassetteMessage;
    if (mine.role !== theirs.role) return `messages[${index}] is a ${mine.role} message here, a ${theirs.role} message in the recorded call`;
    const [now, then] = [messageText(mine, matchImageData), messageText(theirs, matchImageData)];
    if (now !== then) {
      const position = commonPrefixLength(now, then);
      return `messages[${index}] (${mine.role}) differs at character ${position}:\n  recorded: ${excerpt(then, position)}\n  now:      ${excerpt(now, position)}`;
    }
  }
  if (request.messages.length !== recorded.messages.length) {
    const longer = request.messages.length > recorded.messages.length ? request : recorded;
    const extra = longer.messages[shorter] as CassetteMessage;
    const whose = longer === request ? 'this request' : 'the recorded call';
    return `this request has ${request.messages.length} messages, the recorded call ${recorded.messages.length}; messages[${shorter}] (${extra.role}) of ${whose} is ${excerpt(messageText(extra, matchImageData), 0)}`;
  }
  const [mine, theirs] = [request.output, recorded.output];
  if (mine?.name !== theirs?.name) return `the output is ${mine?.name ?? 'text'} here, ${theirs?.name ?? 'text'} in the recorded call`;
  if (mine?.description !== theirs?.description) {
    return `the output's description is ${JSON.stringify(mine?.description ?? null)} here, ${JSON.stringify(theirs?.description ?? null)} in the recorded call`;
  }
  if (mine?.schemaSha256 !== theirs?.schemaSha256) {
    return `the output's schema differs (sha256 ${mine?.schemaSha256 ?? 'none'} here, ${theirs?.schemaSha256 ?? 'none'} in the recorded call)`;
  }
  if (request.temperature !== recorded.temperature) {
    return `temperature is ${settingText(request.temperature)} here, ${settingText(recorded.temperature)} in the recorded call`;
  }
  if (request.maxOutputTokens !== recorded.maxOutputTokens) {
    return `maxOutputTokens is ${settingText(request.maxOutputTokens)} here, ${settingText(recorded.maxOutputTokens)} in the recorded call`;
  }
  return undefined;
}

/** The closest recorded call to `request` (the earliest among equals, an unused one first) and how they differ. */
export function describeMismatch(request: CassetteRequest, key: string, candidates: readonly RecordedCandidate[], matchImageData: boolean): Mismatch {
  if (candidates.length === 0) return { closestCall: undefined, difference: undefined, report: 'The cassette has no recorded calls.' };
  const identical = candidates.filter((candidate) => candidate.key === key).length;
  if (identical > 0) {
    const closestCall = candidates.findIndex((candidate) => candidate.key === key);
    return {
      closestCall,
      difference: undefined,
      report: `This request is the same as calls[${closestCall}], but the cassette recorded it ${identical} time${identical === 1 ? '' : 's'} and this run makes it once more: the run went a different way than the recorded one.`,
    };
  }
  let closestCall = 0;
  let best: readonly number[] | undefined;
  candidates.forEach((candidate, index) => {
    const score = [...similarity(request, candidate.request, matchImageData), candidate.used ? 0 : 1];
    if (best === undefined || greater(score, best)) {
      best = score;
      closestCall = index;
    }
  });
  const closest = candidates[closestCall] as RecordedCandidate;
  const difference = firstDifference(request, closest.request, matchImageData) ?? 'no difference found';
  return {
    closestCall,
    difference,
    report: `The closest recorded call is calls[${closestCall}] (${describeRequest(closest.request)}): ${difference}`,
  };
}
