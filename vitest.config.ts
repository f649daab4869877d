// Vitest config: unit tests next to the code (src/**/*.test.ts) and package-level tests (test/**/*.test.ts).
// Coverage (v8) covers every src file, tested or not; scripts/test.mjs enforces the line threshold.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `plannav` and `plannav/<entry>` in examples resolve to src/ (tsconfig.json paths), as under tsx,
  // so the demo's test runs the sources and counts for coverage.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    reporters: ['default'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/**/*.d.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
    },
  },
});
