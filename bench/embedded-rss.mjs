// The embedded server's memory: RSS of a `vigia serve` process (PGlite, an existing data
// directory, as after a restart) at idle, its peak during a 30 s flood of large bodies (three
// admin clients posting a signal whose message is BODY bytes — 3.9 MB by default, under the 4 MiB
// body limit, so each is parsed and stored; BODY=5000000 is refused with 413 unread — and one
// anonymous client posting the same body to the public API), at the end of the flood and 15 s
// later. Run: `node bench/embedded-rss.mjs ['{"ENV":"value"}' ['["--node-flag"]']]`; results are
// in bench/RESULTS.md ("Embedded engine memory"). Sleeps here are the measurement's own pauses.
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const dir = mkdtempSync(path.join(tmpdir(), 'rss-'));
const token = 'vat_' + 'x'.repeat(48);
const extraEnv = JSON.parse(process.argv[2] ?? '{}');
const nodeArgs = JSON.parse(process.argv[3] ?? '[]');
const start = () => spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts', 'serve'], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, VIGIA_DATA_DIR: dir, PORT: '0', VIGIA_ADMIN_TOKEN: token, VIGIA_LOG_LEVEL: 'info', ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
// First start creates the database; the measured one opens an existing directory, as a restart does.
const first = start(); await new Promise((r) => { let o = ''; first.stdout.on('data', (d) => { o += d; if (/vigia listening/.test(o)) r(); }); }); first.kill('SIGTERM'); await new Promise((r) => first.once('exit', r));
const child = start();
let out = '';
const base = await new Promise((r) => child.stdout.on('data', (d) => { out += d; const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out); if (m) r(m[0]); }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// It logs at warn: wait for readiness.
for (let i = 0; i < 100; i++) { try { if ((await fetch(`${base}/readyz`)).ok) break; } catch {} await sleep(100); }
const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const org = await (await fetch(`${base}/api/admin/v1/orgs`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'rss' }) })).json();
await sleep(10000);
const idle = rss(child.pid);
const big = JSON.stringify({ sourceType: 'Dataset', sourceId: 'x', sourceName: 'x', kind: 'failure', notificationKind: 'k', title: 't', message: 'm'.repeat(Number(process.env.BODY ?? 3_900_000)) });
let peak = idle; let n = 0; const statuses = {};
const t0 = Date.now();
const worker = async () => { while (Date.now() - t0 < 30_000) { const r = await fetch(`${base}/api/admin/v1/orgs/${org.id}/signals`, { method: 'POST', headers: h, body: big }).catch(() => null); if (r) { statuses[r.status] = (statuses[r.status] ?? 0) + 1; await r.arrayBuffer(); } n++; peak = Math.max(peak, rss(child.pid)); } };
const pub = async () => { while (Date.now() - t0 < 30_000) { const r = await fetch(`${base}/api/public/v1/alerts`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'vgk_bad' }, body: big }).catch(() => null); if (r) { statuses['pub' + r.status] = (statuses['pub' + r.status] ?? 0) + 1; await r.arrayBuffer(); } n++; peak = Math.max(peak, rss(child.pid)); } };
await Promise.all([worker(), worker(), worker(), pub()]);
const end = rss(child.pid);
await sleep(15000);
const after = rss(child.pid);
console.log(JSON.stringify({ body: big.length, load: (await import('node:os')).loadavg()[0], env: extraEnv, nodeArgs, idleMiB: Math.round(idle), peakMiB: Math.round(peak), endOfFloodMiB: Math.round(end), after15sMiB: Math.round(after), requests: n, statuses }));
child.kill('SIGTERM');
