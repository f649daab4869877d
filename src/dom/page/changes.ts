// The page-change probe run between the actions of one step: did something appear that the
// snapshot would list and the model has not seen? Runs in the page, with the snapshot's own rules.

import { knownElements } from './registry';
import { lastSnapshotOptions, listedElements } from './snapshot';

/** What one probe of a frame found. */
export interface FrameProbe {
  /** No snapshot ran in this document: it was loaded since the state the model saw. */
  readonly newDocument: boolean;
  /** Elements the snapshot would list now that were not in the last one (at most 50 counted). */
  readonly newElements: number;
}

/** Compares what a snapshot would list now with what the last snapshot listed. */
export function probeChanges(): FrameProbe {
  const options = lastSnapshotOptions();
  if (!options) return { newDocument: true, newElements: 0 };
  const known = knownElements();
  let count = 0;
  for (const element of listedElements(options)) {
    if (!known.has(element) && ++count >= 50) break;
  }
  return { newDocument: false, newElements: count };
}
