// Checks (or with --local, updates) the API report etc/*.api.md and the API reference docs/api/ of every entry in
// scripts/entries.mjs; with --docs, updates docs/api/ alone. Reads dist/<name>.d.ts written by tsup: build first.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { apiDocs, modelFileOf } from './api-docs.mjs';
import { apiReportOf, entries, specifierOf } from './entries.mjs';

// One config file (api-extractor.json, the core's); each other entry differs only in its .d.ts and report name.
const configFile = resolve('api-extractor.json');
const baseConfig = ExtractorConfig.loadFile(configFile);

/** The api-extractor config of an entry: the base one, pointed at dist/<name>.d.ts and its report. */
function configOf(/** @type {import('./entries.mjs').Entry} */ entry) {
  const reportFileName = apiReportOf(entry)
    .replace(/^etc\//, '')
    .replace(/\.api\.md$/, '');
  return ExtractorConfig.prepare({
    configObject: {
      ...baseConfig,
      mainEntryPointFilePath: `<projectFolder>/dist/${entry.name}.d.ts`,
      apiReport: { ...baseConfig.apiReport, enabled: !docsOnly, reportFileName },
      docModel: { ...baseConfig.docModel, enabled: true, apiJsonFilePath: `<projectFolder>/${modelFileOf(entry)}` },
    },
    configObjectFullPath: configFile,
    packageJsonFullPath: resolve('package.json'),
  });
}

const docsOnly = process.argv.includes('--docs');
const local = docsOnly || process.argv.includes('--local');
const changed = [];
let failed = false;

const built = entries.filter((entry) => {
  const dts = `dist/${entry.name}.d.ts`;
  if (existsSync(dts)) return true;
  console.error(`api-report: ${dts} is missing: run npm run build first`);
  failed = true;
  return false;
});
const configs = built.map((entry) => ({ entry, config: configOf(entry) }));
// One TypeScript program over every entry's .d.ts, shared by all the entries: the declarations are compiled and
// type-checked once, not once per entry (they import the same chunks).
const compilerState = configs[0]
  ? CompilerState.create(configs[0].config, { additionalEntryPoints: configs.slice(1).map(({ config }) => config.mainEntryPointFilePath) })
  : undefined;

for (const { entry, config } of configs) {
  // Warnings (forgotten exports) are printed but never fail; errors (TSDoc syntax, unresolved links) and report drift do.
  const result = Extractor.invoke(config, { localBuild: local, printApiReportDiff: !local, ...(compilerState ? { compilerState } : {}) });
  if (result.errorCount > 0) failed = true;
  if (result.apiReportChanged) changed.push(apiReportOf(entry));
  console.log(`api-report: ${specifierOf(entry)}: ${result.errorCount} errors, ${result.warningCount} warnings`);
}

if (docsOnly) {
  // The reports are neither checked nor written.
} else if (local) {
  console.log(changed.length ? `api-report: updated ${changed.join(', ')}` : 'api-report: reports are up to date');
} else if (changed.length) {
  console.error(`api-report: ${changed.join(', ')} differ from the build.`);
  console.error('public API changed: run npm run api:update and commit etc/*.api.md');
  failed = true;
}
// The reference is generated from the doc models just written, so it is as fresh as the reports.
try {
  if (!apiDocs({ check: !local })) failed = true;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  failed = true;
}
process.exitCode = failed ? 1 : 0;
