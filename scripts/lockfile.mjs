// Whether package-lock.json still matches package.json, without npm and without the network: the
// check that scripts/ensure-deps.mjs reports from and test/package/lockfile.test.ts enforces.
// It reads the two JSON documents only; installing, and asking npm itself, is the caller's job.

/** The package.json fields that npm copies, range for range, into the lockfile's root entry. */
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

/**
 * Where node would find package `name` required from the lockfile entry at `from` (`''` is the
 * project itself): `from/node_modules/name`, then each enclosing node_modules folder up to the root.
 * @param {Record<string, unknown>} packages the lockfile's `packages`
 * @param {string} from
 * @param {string} name
 * @returns {string | undefined} the entry's key, or undefined when the lockfile has none
 */
function resolveEntry(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const index = base.lastIndexOf('/node_modules/');
    base = index === -1 ? '' : base.slice(0, index);
  }
}

/**
 * What is out of sync between package.json and package-lock.json; empty when `npm ci` installs
 * exactly what package.json asks for.
 *
 * - Each dependency range of package.json must be the one in the lockfile's root entry, and the
 *   other way round (npm writes them there verbatim, so a difference means the lockfile was made
 *   from another package.json).
 * - Every dependency, optional dependency and required peer of every package in the lockfile must
 *   have an entry where node would look for it. `npm ci` does not notice a missing optional one
 *   (npm treats the edge as satisfied), yet the machine it is for then lacks it, as when a lockfile
 *   made on one platform loses another platform's binary package.
 * @param {any} manifest package.json, parsed
 * @param {any} lock package-lock.json, parsed
 * @returns {string[]} one sentence per problem
 */
export function lockfileProblems(manifest, lock) {
  if (typeof lock?.packages !== 'object' || lock.packages === null) {
    return [`package-lock.json has no "packages" (lockfileVersion ${lock?.lockfileVersion ?? 'missing'}); npm ci needs lockfileVersion 2 or 3`];
  }
  /** @type {Record<string, any>} */
  const packages = lock.packages;
  const problems = [];
  const root = packages[''] ?? {};
  for (const field of DEPENDENCY_FIELDS) {
    const wanted = manifest?.[field] ?? {};
    const locked = root[field] ?? {};
    for (const [name, range] of Object.entries(wanted)) {
      if (locked[name] === undefined) problems.push(`${field} "${name}": "${range}" in package.json is not in package-lock.json`);
      else if (locked[name] !== range) problems.push(`${field} "${name}" is "${range}" in package.json but "${locked[name]}" in package-lock.json`);
    }
    for (const name of Object.keys(locked)) {
      if (wanted[name] === undefined) problems.push(`${field} "${name}" is in package-lock.json but no longer in package.json`);
    }
  }
  for (const [path, entry] of Object.entries(packages)) {
    if (entry?.link) continue;
    const optionalPeers = entry?.peerDependenciesMeta ?? {};
    const edges = [
      ...Object.keys(path === '' ? {} : (entry?.dependencies ?? {})).map((name) => ({ name, kind: 'dependency' })),
      ...Object.keys(entry?.optionalDependencies ?? {}).map((name) => ({ name, kind: 'optional dependency' })),
      ...Object.keys(path === '' ? {} : (entry?.peerDependencies ?? {}))
        .filter((name) => optionalPeers[name]?.optional !== true)
        .map((name) => ({ name, kind: 'peer dependency' })),
    ];
    // The root's own dependencies are the entries checked above; their installed copies must exist too.
    if (path === '') {
      for (const field of ['dependencies', 'devDependencies'])
        for (const name of Object.keys(entry?.[field] ?? {})) edges.push({ name, kind: field.replace(/ies$/, 'y') });
    }
    for (const { name, kind } of edges) {
      if (!resolveEntry(packages, path, name))
        problems.push(`"${name}" (${kind} of ${path === '' ? 'the project' : path.replace(/^.*node_modules\//, '')}) has no entry in package-lock.json`);
    }
  }
  return problems;
}
