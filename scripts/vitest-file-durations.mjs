// Vitest reporter used by scripts/test.mjs: writes each test file's time (import, tests and hooks, beforeAll included,
// which the JSON reporter's start and end times leave out) to the JSON file named by PLANNAV_FILE_DURATIONS.
// It prints nothing and never fails a run.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class FileDurations {
  /** @type {{ name: string, project: string, ms: number }[]} */
  files = [];

  /** @param {import('vitest/node').TestModule} testModule */
  onTestModuleEnd(testModule) {
    const { collectDuration, duration } = testModule.diagnostic();
    this.files.push({ name: relative(process.cwd(), testModule.moduleId), project: testModule.project.name, ms: collectDuration + duration });
  }

  onTestRunEnd() {
    const file = process.env.PLANNAV_FILE_DURATIONS;
    if (file) writeFileSync(file, JSON.stringify(this.files));
  }
}
