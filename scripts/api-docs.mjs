// Writes the Markdown API reference docs/api/ (built on release, not committed) from the doc models that api-report.mjs
// extracts into temp/api-model/ (npm run docs:api extracts them first); without --write, into a folder thrown away,
// for the check. Any TSDoc warning, such as an unresolved {@link}, fails.
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
 * a name it uses without exporting point at the entry that exports it (the core first), where it is documented; a
 * `{@link Name}` to another entry's export is qualified the same way (`{@link plannav-driver#Name}`).
 * @param {import('./entries.mjs').Entry} entry
 * @param {Map<string, string>} homes the package each exported name is documented under
 * @param {Map<string, string>} unnamedHomes the package each name no entry exports is documented under
 */
function relocatedModel(entry, homes, unnamedHomes) {
  /** @type {{ name: string, docComment: string, members: { members: { name: string, canonicalReference: string }[] }[] }} */
  const read = JSON.parse(readFileSync(modelFileOf(entry), 'utf8'));
  // The entry's summary, as a `@packageDocumentation` comment would give it (the bundled .d.ts files carry none).
  const model = { ...read, docComment: `/**\n * ${entry.summary}\n *\n * @packageDocumentation\n */\n` };
  const name = packageNameOf(entry);
  // A member `plannav!~Name` is a declaration the entry uses without exporting it (the doc models include them): it
  // is documented in the entry that exports it, else in the first entry that uses it (the core first), so once.
  const [members = []] = model.members[0] ? [model.members[0].members] : [];
  const isUnnamed = (/** @type {{ canonicalReference: string }} */ member) => member.canonicalReference.startsWith('plannav!~');
  const kept = members.filter((member) => !isUnnamed(member) || (!homes.has(member.name) && unnamedHomes.get(member.name) === name));
  if (model.members[0]) model.members = [{ ...model.members[0], members: kept }, ...model.members.slice(1)];
  const own = new Set(kept.filter((member) => !isUnnamed(member)).map((member) => member.name));
  const rename = (/** @type {string} */ reference) => {
    const match = /^plannav!(~?)([^:#.~]+)(.*)$/s.exec(reference);
    const [, local = '', symbol = '', rest = ''] = match ?? [];
    if (match && !local && own.has(symbol)) return `${name}!${symbol}${rest}`;
    const home = homes.get(symbol);
    if (match && local && home) return `${home}!${symbol}${rest}`;
    const unnamedHome = unnamedHomes.get(symbol);
    if (match && local && unnamedHome) return `${unnamedHome}!~${symbol}${rest}`;
    return reference;
  };
  const linkTarget = (/** @type {string} */ target) => {
    const home = homes.get(target.split('.')[0] ?? '');
    return !own.has(target.split('.')[0] ?? '') && home && home !== name ? `${home}#${target}` : target;
  };
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
    if (!existsSync(modelFileOf(entry))) throw new Error(`api-docs: ${modelFileOf(entry)} is missing: run npm run docs:api (or npm run api) first`);
  }
  // Where each name is documented: the first entry that exports it (entries.mjs lists the core first, so a contract
  // the core shares with plannav/driver or plannav/provider is documented in the core).
  /** @type {Map<string, string>} */
  const homes = new Map();
  /** @type {Map<string, string>} */
  const unnamedHomes = new Map();
  for (const entry of entries) {
    /** @type {{ members: { members: { name: string, canonicalReference: string }[] }[] }} */
    const model = JSON.parse(readFileSync(modelFileOf(entry), 'utf8'));
    for (const member of model.members[0]?.members ?? []) {
      const found = member.canonicalReference.startsWith('plannav!~') ? unnamedHomes : homes;
      if (!found.has(member.name)) found.set(member.name, packageNameOf(entry));
    }
  }
  const apiModel = new ApiModel();
  const relocated = mkdtempSync(join(tmpdir(), 'plannav-api-model-'));
  try {
    for (const entry of entries) {
      const file = join(relocated, `${packageNameOf(entry)}.api.json`);
      writeFileSync(file, JSON.stringify(relocatedModel(entry, homes, unnamedHomes)));
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

/**
 * Writes the reference into docs/api/ (`write`), or into a folder thrown away; false when api-documenter warned.
 * docs/api/ is not committed: it is built on release (npm run docs:api).
 */
export function apiDocs({ write = false } = {}) {
  const folder = write ? docsFolder : mkdtempSync(join(tmpdir(), 'plannav-api-docs-'));
  try {
    if (write) {
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
    }
    const warnings = generate(folder);
    for (const warning of warnings) console.error(`api-docs: ${warning}`);
    if (warnings.length > 0) console.error(`api-docs: ${warnings.length} TSDoc warnings: fix the comments they name`);
    else console.log(write ? `api-docs: wrote ${readdirSync(folder).length} pages to ${docsFolder}/` : 'api-docs: the reference generates without a warning');
    return warnings.length === 0;
  } finally {
    if (!write) rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = apiDocs({ write: process.argv.includes('--write') }) ? 0 : 1;
}
