// Reads the fingerprints of snapshot elements through the page runtime, one call per frame, and
// checks what the page sends back (it controls that JSON). Never throws over a malformed answer.

import { z } from 'zod';
import type { BrowserDriver, CallOptions, ElementRef } from '../browser/types';
import { BrowserDisconnectedError } from '../errors';
import { callRuntime } from './page-runtime';
import type { PageFingerprint } from './page/fingerprint';

/**
 * An element's fingerprint with the URL of its frame's document: the same shape as
 * `ElementFingerprint` of the history, which this layer may not import.
 */
export type ReadFingerprint = PageFingerprint & { readonly frameUrl: string };

/** How many elements one runtime call fingerprints, so that no answer grows without bound. */
const elementsPerCall = 200;

// The page caps values at 200 characters (plus `…`); anything far beyond is not our runtime's answer.
const shortText = z.string().max(256);
const ancestorSchema = z.object({
  tagName: z.string().min(1).max(64),
  role: z.string().max(64).optional(),
  name: z.string().max(128).optional(),
  id: shortText.optional(),
});
const boxSchema = z.object({ x: z.number(), y: z.number(), width: z.number().nonnegative(), height: z.number().nonnegative() });
const fingerprintSchema = z.object({
  tagName: z.string().min(1).max(64),
  role: z.string().max(64).optional(),
  name: shortText,
  text: shortText,
  attributes: z.record(z.string().max(64), shortText).refine((attributes) => Object.keys(attributes).length <= 32, 'too many attributes'),
  xpath: z.string().min(1).max(8000),
  cssPath: z.string().max(8000),
  ancestors: z.array(ancestorSchema).max(5),
  box: boxSchema.optional(),
  record: z.object({ name: z.string().min(1).max(128), from: z.enum(['label', 'heading', 'link', 'cell']), scope: z.enum(['item', 'page']) }).optional(),
  disabled: z.boolean().optional(),
  checked: z.boolean().optional(),
});

/**
 * The fingerprints of `refs`, in their order: what replay needs to find each element again.
 * Elements of the same frame are read together. An entry is `undefined` when its element is
 * gone, its frame is no longer listed by `driver.frames()`, the frame could not be read, or the
 * page's answer is malformed; `frameUrl` is the frame's URL as `frames()` lists it.
 * @throws the signal's reason when `options.signal` aborts, and `BrowserDisconnectedError` when the browser is gone.
 */
export async function readFingerprints(
  driver: Pick<BrowserDriver, 'evaluate' | 'frames'>,
  refs: readonly ElementRef[],
  options?: CallOptions,
): Promise<(ReadFingerprint | undefined)[]> {
  const results: (ReadFingerprint | undefined)[] = refs.map(() => undefined);
  if (refs.length === 0) return results;
  const frames = await guarded(() => driver.frames(options), options);
  if (!frames) return results;
  const urls = new Map(frames.map((frame) => [frame.id, frame.url]));
  const batches: { readonly frameId: string; readonly entries: { readonly position: number; readonly ref: ElementRef }[] }[] = [];
  const open = new Map<string, { readonly position: number; readonly ref: ElementRef }[]>();
  refs.forEach((ref, position) => {
    if (!urls.has(ref.frameId)) return;
    let entries = open.get(ref.frameId);
    if (!entries || entries.length >= elementsPerCall) {
      entries = [];
      open.set(ref.frameId, entries);
      batches.push({ frameId: ref.frameId, entries });
    }
    entries.push({ position, ref });
  });
  await Promise.all(
    batches.map(async ({ frameId, entries }) => {
      const elements = entries.map(({ ref }) => ({ elementId: ref.elementId, selector: ref.selector ?? null }));
      const answer = await guarded(() => callRuntime(driver, frameId, 'fingerprints', { elements }, options), options);
      if (!Array.isArray(answer) || answer.length !== entries.length) return;
      const frameUrl = urls.get(frameId) ?? '';
      entries.forEach(({ position }, slot) => {
        results[position] = parseFingerprint(answer[slot], frameUrl);
      });
    }),
  );
  return results;
}

/** The fingerprint in one entry of the page's answer, or `undefined` when it is `null` or malformed. */
function parseFingerprint(raw: unknown, frameUrl: string): ReadFingerprint | undefined {
  const parsed = fingerprintSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { data } = parsed;
  return {
    tagName: data.tagName,
    role: data.role,
    name: data.name,
    text: data.text,
    attributes: data.attributes,
    xpath: data.xpath,
    cssPath: data.cssPath,
    ancestors: data.ancestors,
    box: data.box,
    ...(data.record ? { record: data.record } : {}),
    ...(data.disabled !== undefined ? { disabled: data.disabled } : {}),
    ...(data.checked !== undefined ? { checked: data.checked } : {}),
    frameUrl,
  };
}

/**
 * Runs a read that may fail with the page (a frame gone, a page that blocks the runtime): its
 * value, or `undefined` when it failed. A cancel and a browser that is gone still throw.
 */
async function guarded<T>(read: () => Promise<T>, options: CallOptions | undefined): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (options?.signal?.aborted || BrowserDisconnectedError.isInstance(error)) throw error;
    return undefined;
  }
}
