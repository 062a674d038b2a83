// `node scripts/complete-lockfile.cjs [lockfile]` after `npm install` changes package-lock.json.
// npm leaves out of the lock the optional platform packages its registry cannot serve (our
// registry mirror has, for example, only the Linux builds of Biome), and `npm ci` then refuses
// the lock as out of sync. This adds an entry for each missing one, marked with its os/cpu/libc,
// so `npm ci` skips it on other platforms instead of failing; nothing else in the lock changes.
//
// The file is written exactly as npm writes it (its json-stringify-nice order: in every object
// plain values and arrays before objects, npm's preferred keys first, the rest in 'en' locale
// order), so the next `npm install` finds nothing to rewrite. Appending the new entries in
// insertion order left them out of place, and a fresh clone's `npm install` reordered the lock.
const fs = require('fs');

/** npm's top-level key order of a lock file (@npmcli/arborist's swKeyOrder). */
const NPM_KEY_ORDER = ['name', 'version', 'lockfileVersion', 'resolved', 'integrity', 'requires', 'packages', 'dependencies'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function compareKeys(a, b) {
  const ia = NPM_KEY_ORDER.indexOf(a);
  const ib = NPM_KEY_ORDER.indexOf(b);
  if (ia !== -1 || ib !== -1) return ia === -1 ? 1 : ib === -1 ? -1 : ia - ib;
  return a.localeCompare(b, 'en');
}
/** JSON text of a lock as npm writes it. */
function stringifyLikeNpm(value) {
  const order = (_key, v) => {
    if (!isObject(v)) return v;
    const entries = Object.entries(v).sort(([ak, av], [bk, bv]) => (isObject(av) === isObject(bv) ? compareKeys(ak, bk) : isObject(av) ? 1 : -1));
    return Object.fromEntries(entries);
  };
  return `${JSON.stringify(value, order, 2)}\n`;
}

function completeLockfile(l) {
  const added = [];
  for (const [key, pkg] of Object.entries(l.packages)) {
    if (!pkg.optionalDependencies) continue;
    const base = key === '' ? '' : key + '/';
    for (const [name, range] of Object.entries(pkg.optionalDependencies)) {
      // resolution: nested first, then hoisted
      const nested = `${base}node_modules/${name}`;
      const hoisted = `node_modules/${name}`;
      if (l.packages[nested] || l.packages[hoisted]) continue;
      const m = name.match(/(android|darwin|linux|win32|freebsd|openbsd|netbsd|sunos|aix|openharmony|wasm32)[-_]?(arm64|x64|ia32|arm|riscv64|ppc64|s390x|loong64|wasi)?/);
      const entry = { version: range.replace(/^[\^~=]/, ''), optional: true };
      if (pkg.dev) entry.dev = true;
      if (m && m[1] !== 'wasm32') { entry.os = [m[1]]; if (m[2]) entry.cpu = [m[2]]; }
      if (m && m[1] === 'wasm32') entry.cpu = ['wasm32'];
      if (/-musl$/.test(name)) entry.libc = ['musl'];
      l.packages[hoisted] = entry;
      added.push(`${hoisted}@${entry.version}`);
    }
  }
  return added;
}

if (require.main === module) {
  const file = process.argv[2] ?? 'package-lock.json';
  const l = JSON.parse(fs.readFileSync(file, 'utf8'));
  const added = completeLockfile(l);
  fs.writeFileSync(file, stringifyLikeNpm(l));
  console.log(added.join('\n') || 'none');
}

module.exports = { completeLockfile, stringifyLikeNpm };
