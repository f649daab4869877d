// Writes (or with --check, checks) the Markdown API reference docs/api/ from the doc models that api-report.mjs
// extracts into temp/api-model/ (npm run docs extracts them first). Any TSDoc warning, such as an unresolved {@link}, fails.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { entries, specifierOf } from './entries.mjs';

export const modelFolder = 'temp/api-model';
export const docsFolder = 'docs/api';

// api-documenter checks its model with instanceof: the model classes must come from its own copy of api-extractor-model.
const requireFromDocumenter = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-documenter/package.json'));
const { MarkdownDocumenter } = /** @type {typeof import('@microsoft/api-documenter/lib/documenters/MarkdownDocumenter')} */ (
  requireFromDocumenter('./lib-commonjs/documenters/MarkdownDocumenter.js')
);
const { ApiModel } = /** @type {{ ApiModel: new () => ConstructorParameters<typeof MarkdownDocumenter>[0]['apiModel'] }} */ (
  requireFromDocumenter('@microsoft/api-extractor-model')
);

/** Where api-extractor writes the doc model of an entry. */
export const modelFileOf = (/** @type {import('./entries.mjs').Entry} */ entry) => `${modelFolder}/${entry.name}.api.json`;

/**
 * The package name an entry is documented under. api-documenter documents one entry point per package and names
 * pages after the package, so each subpath becomes a package of its own (`plannav-testing`), shown as `plannav/testing`.
 */
const packageNameOf = (/** @type {import('./entries.mjs').Entry} */ entry) => (entry.name === 'index' ? 'plannav' : `plannav-${entry.name}`);

/**
 * An entry's doc model, moved to its own package: references to what the entry exports point into it, references to
 * anything else keep pointing at the core (`plannav`), where the shared types are documented; a `{@link Name}` to a
 * core export from a subpath's comment is qualified the same way (`{@link plannav#Name}`).
 * @param {import('./entries.mjs').Entry} entry
 * @param {Set<string>} coreNames what the core entry exports
 */
function relocatedModel(entry, coreNames) {
  /** @type {{ name: string, docComment: string, members: { members: { name: string }[] }[] }} */
  const read = JSON.parse(readFileSync(modelFileOf(entry), 'utf8'));
  // The entry's summary, as a `@packageDocumentation` comment would give it (the bundled .d.ts files carry none).
  const model = { ...read, docComment: `/**\n * ${entry.summary}\n *\n * @packageDocumentation\n */\n` };
  const name = packageNameOf(entry);
  if (name === 'plannav') return model;
  const own = new Set(model.members[0]?.members.map((member) => member.name));
  const rename = (/** @type {string} */ reference) => {
    // `plannav!~Name` is a declaration the entry's .d.ts uses without exporting it: a core type, documented there.
    const match = /^plannav!(~?)([^:#.~]+)(.*)$/s.exec(reference);
    const [, local = '', symbol = '', rest = ''] = match ?? [];
    if (match && !local && own.has(symbol)) return `${name}!${symbol}${rest}`;
    if (match && local && coreNames.has(symbol)) return `plannav!${symbol}${rest}`;
    return reference;
  };
  const linkTarget = (/** @type {string} */ target) =>
    !own.has(target.split('.')[0] ?? '') && coreNames.has(target.split('.')[0] ?? '') ? `plannav#${target}` : target;
  /** @returns {unknown} */
  const walk = (/** @type {unknown} */ value, /** @type {string} */ key) => {
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([field, item]) => [field, walk(item, field)]));
    if (typeof value !== 'string') return value;
    if (key === 'canonicalReference') return value === 'plannav!' ? `${name}!` : rename(value);
    if (key === 'docComment') return value.replace(/\{@link\s+([\w.$]+)/g, (_link, target) => `{@link ${linkTarget(String(target))}`);
    return value;
  };
  return { .../** @type {object} */ (walk(model, '')), name };
}

/**
 * The generated pages name each subpath as a package (`plannav-testing package`); they are entry points of one package.
 * api-documenter writes CRLF line ends without a config file; the repository's are LF.
 */
function retitled(/** @type {string} */ markdown) {
  let text = markdown.replaceAll('\r\n', '\n').replace('## Packages\n', '## Entry points\n').replace('<th>\n\nPackage\n', '<th>\n\nEntry point\n');
  for (const entry of entries) {
    if (entry.name === 'index') continue;
    const name = packageNameOf(entry);
    const specifier = specifierOf(entry);
    text = text.replaceAll(`## ${name} package`, `## ${specifier} entry point`).replaceAll(`[${name}](./${name}.md)`, `[${specifier}](./${name}.md)`);
  }
  return text.replace('## plannav package', '## plannav entry point');
}

/** Writes the Markdown pages of every entry into `folder`; returns the warnings api-documenter printed. */
function generate(/** @type {string} */ folder) {
  for (const entry of entries) {
    if (!existsSync(modelFileOf(entry))) throw new Error(`api-docs: ${modelFileOf(entry)} is missing: run npm run docs (or npm run api) first`);
  }
  const core = entries.find((entry) => entry.name === 'index');
  if (!core) throw new Error('api-docs: scripts/entries.mjs has no core entry');
  /** @type {{ members: { members: { name: string }[] }[] }} */
  const coreModel = JSON.parse(readFileSync(modelFileOf(core), 'utf8'));
  const coreNames = new Set(coreModel.members[0]?.members.map((member) => member.name));
  const apiModel = new ApiModel();
  const relocated = mkdtempSync(join(tmpdir(), 'plannav-api-model-'));
  try {
    for (const entry of entries) {
      const file = join(relocated, `${packageNameOf(entry)}.api.json`);
      writeFileSync(file, JSON.stringify(relocatedModel(entry, coreNames)));
      apiModel.loadPackage(file);
    }
  } finally {
    rmSync(relocated, { recursive: true, force: true });
  }

  /** @type {string[]} */
  const warnings = [];
  const log = console.log;
  // api-documenter reports unresolved links and the like on stdout, as lines that start with "Warning" (in color).
  console.log = (/** @type {unknown[]} */ ...args) => {
    const line = args.map(String).join(' ');
    if (/warning|unable to|unresolved|diagnostic/i.test(line)) warnings.push(stripVTControlCharacters(line));
  };
  try {
    new MarkdownDocumenter({ apiModel, documenterConfig: undefined, outputFolder: folder }).generateFiles();
  } finally {
    console.log = log;
  }
  for (const file of readdirSync(folder)) writeFileSync(join(folder, file), retitled(readFileSync(join(folder, file), 'utf8')));
  return warnings;
}

/** The files of two folders that differ, are missing or are extra, relative to `expected`. */
function differences(/** @type {string} */ expected, /** @type {string} */ actual) {
  const files = new Set([...(existsSync(expected) ? readdirSync(expected) : []), ...readdirSync(actual)]);
  return [...files].filter((file) => {
    const want = join(expected, file);
    const got = join(actual, file);
    return !existsSync(want) || !existsSync(got) || readFileSync(want, 'utf8') !== readFileSync(got, 'utf8');
  });
}

/**
 * Writes docs/api/ (or with `check`, compares a fresh copy with it). False when api-documenter warned or, in a check,
 * when docs/api/ is out of date.
 */
export function apiDocs({ check = false } = {}) {
  const folder = check ? mkdtempSync(join(tmpdir(), 'plannav-api-docs-')) : docsFolder;
  try {
    if (!check) mkdirSync(folder, { recursive: true });
    const warnings = generate(folder);
    for (const warning of warnings) console.error(`api-docs: ${warning}`);
    if (warnings.length > 0) console.error(`api-docs: ${warnings.length} TSDoc warnings: fix the comments they name`);
    if (!check) {
      console.log(`api-docs: wrote ${readdirSync(folder).length} pages to ${docsFolder}/`);
      return warnings.length === 0;
    }
    const changed = differences(docsFolder, folder);
    if (changed.length > 0) {
      console.error(
        `api-docs: ${docsFolder}/ differs from the TSDoc in ${changed.length} pages (${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''})`,
      );
      console.error('api-docs: run npm run api:update (or npm run docs) and commit docs/api/');
    } else {
      console.log(`api-docs: ${docsFolder}/ is up to date`);
    }
    return warnings.length === 0 && changed.length === 0;
  } finally {
    if (check) rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = apiDocs({ check: process.argv.includes('--check') }) ? 0 : 1;
}
