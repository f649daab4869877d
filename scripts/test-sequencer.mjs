// Vitest sequencer used by vitest.config.ts: the slowest test files start first, so the long e2e files do not end up
// running alone at the end of a run while the other workers sit idle. Times come from test/durations.json (committed,
// refreshed with `PLANNAV_UPDATE_DURATIONS=1 npm test`), since a clean clone has no vitest cache; a file not listed
// there counts as a short one. Otherwise the order is vitest's own (groups first, then its cache and file sizes).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';

/** Seconds a test file not listed in test/durations.json is taken to need. */
const UNKNOWN_FILE_SECONDS = 5;

/** @returns {Record<string, number>} seconds by file path relative to the root */
function committedDurations(/** @type {string} */ root) {
  try {
    return JSON.parse(readFileSync(`${root}/test/durations.json`, 'utf8')).seconds ?? {};
  } catch {
    return {};
  }
}

export default class SlowestFirst extends BaseSequencer {
  /**
   * @override
   * @param {import('vitest/node').TestSpecification[]} files
   */
  async sort(files) {
    const root = this.ctx.config.root;
    const seconds = committedDurations(root);
    const known = (/** @type {import('vitest/node').TestSpecification} */ spec) => seconds[relative(root, spec.moduleId)] ?? UNKNOWN_FILE_SECONDS;
    const ordered = await super.sort(files);
    const position = new Map(ordered.map((spec, index) => [spec, index]));
    return ordered.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || known(b) - known(a) || (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
