// `node scripts/complete-lockfile.cjs` after `npm install` changes package-lock.json.
// npm leaves out of the lock the optional platform packages its registry cannot serve (our
// registry mirror has, for example, only the Linux builds of Biome), and `npm ci` then refuses
// the lock as out of sync. This adds an entry for each missing one, marked with its os/cpu/libc,
// so `npm ci` skips it on other platforms instead of failing; nothing else in the lock changes.
const fs = require('fs');
const l = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
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
fs.writeFileSync('package-lock.json', JSON.stringify(l, null, 2) + '\n');
console.log(added.join('\n') || 'none');
