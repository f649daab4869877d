// Checks (or with --local, updates) the API report etc/*.api.md of every entry in scripts/entries.mjs, and that the
// API reference generates without a warning; with --docs, writes the reference to docs/api/ (built on release, not
// committed: npm run docs:api). Reads dist/<name>.d.ts written by tsup: build first.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
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
      docModel: { ...baseConfig.docModel, enabled: true, includeForgottenExports: true, apiJsonFilePath: `<projectFolder>/${modelFileOf(entry)}` },
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

/**
 * The names each entry uses without exporting (api-extractor's ae-forgotten-export). Once every entry
 * is extracted, each is looked up: a type of another entry is documented there (the core's `BrowserDriver` uses
 * `ElementRef` of plannav/driver); one that no entry exports can be reached, not named, and is listed.
 * @type {Map<import('./entries.mjs').Entry, string[]>}
 */
const forgotten = new Map();
/** @type {Map<import('./entries.mjs').Entry, Set<string>>} the names each entry exports, from its doc model */
const exportedBy = new Map();
/**
 * `{@link Name}`s api-extractor could not resolve in an entry because another entry exports `Name` (the core's
 * `BrowserDriver` links `ElementRef` of plannav/driver): held back until every entry is extracted, then an error only
 * if no entry exports it. The reference (scripts/api-docs.mjs) links them to the entry that does.
 * @type {{ specifier: string, name: string, text: string }[]}
 */
const crossLinks = [];
// One TypeScript program over every entry's .d.ts, shared by all the entries: the declarations are compiled and
// type-checked once, not once per entry (they import the same chunks).
const compilerState = configs[0]
  ? CompilerState.create(configs[0].config, { additionalEntryPoints: configs.slice(1).map(({ config }) => config.mainEntryPointFilePath) })
  : undefined;

for (const { entry, config } of configs) {
  /** @type {Set<string>} */
  const usesUnexported = new Set();
  // Forgotten exports are listed but never fail; errors (TSDoc syntax, unresolved links) and report drift do.
  const result = Extractor.invoke(config, {
    localBuild: local,
    printApiReportDiff: !local,
    ...(compilerState ? { compilerState } : {}),
    messageCallback: (message) => {
      // Names the entry uses without exporting: collected here, listed below once every entry is extracted, and kept
      // out of the report, where their locations (dist/ chunk files named by a hash of their content) would change
      // it whenever any internal type moved. The doc models include the names, so they are documented.
      if (message.messageId === 'ae-forgotten-export') {
        const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1];
        if (symbol) usesUnexported.add(symbol);
        message.logLevel = ExtractorLogLevel.None;
        message.handled = true;
        return;
      }
      const name = message.messageId === 'ae-unresolved-link' ? /does not have an export "([^"]+)"/.exec(message.text)?.[1] : undefined;
      if (!name) return;
      crossLinks.push({ specifier: specifierOf(entry), name, text: message.formatMessageWithLocation(process.cwd() + '/') });
      message.logLevel = ExtractorLogLevel.None;
      message.handled = true;
    },
  });
  if (result.errorCount > 0) failed = true;
  if (result.apiReportChanged) changed.push(apiReportOf(entry));
  console.log(`api-report: ${specifierOf(entry)}: ${result.errorCount} errors, ${result.warningCount} warnings`);
  forgotten.set(entry, [...usesUnexported]);
  /** @type {{ members: { members: { name: string }[] }[] }} */
  const model = JSON.parse(readFileSync(config.apiJsonFilePath, 'utf8'));
  exportedBy.set(entry, new Set(model.members[0]?.members.map((member) => member.name)));
}

for (const { specifier, name, text } of crossLinks) {
  if ([...exportedBy.values()].some((exported) => exported.has(name))) continue;
  console.error(`api-report: ${specifier}: ${text} (no entry exports it)`);
  failed = true;
}
for (const [entry, names] of forgotten) {
  const unnamed = names.filter((name) => ![...exportedBy.values()].some((exported) => exported.has(name)));
  if (unnamed.length > 0) console.log(`api-report: ${specifierOf(entry)} uses, and no entry exports by name: ${unnamed.sort().join(', ')}`);
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
// The reference is generated from the doc models just written, so it is as fresh as the reports: into docs/api/ with
// --docs, else into a folder thrown away, for its warnings (a link to nothing, say).
try {
  if (!apiDocs({ write: docsOnly })) failed = true;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  failed = true;
}
process.exitCode = failed ? 1 : 0;
