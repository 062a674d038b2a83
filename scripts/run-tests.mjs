// `npm test`: makes the test CA, runs the whole suite on both engines (PostgreSQL and PGlite)
// with vitest, and ends with one plain line "N passed, N failed, N skipped" for CI. Before that it
// checks what the selected tests need outside node_modules (test-prerequisites.mjs) and, when
// something is missing, says so in one line and stops.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTestCerts } from './make-test-certs.mjs';
import { missingPrerequisites } from './test-prerequisites.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsFile = path.join(root, '.vitest-results.json');
const missing = await missingPrerequisites(root, process.argv.slice(2));
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(2);
}
const { caCert } = makeTestCerts();
rmSync(resultsFile, { force: true });

const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_EXTRA_CA_CERTS: caCert },
});

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(resultsFile)) {
  const report = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0 ? 0 : 0);
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A file that fails to load has no tests in the counts: count it as a failure.
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed = 1;
}
const code = run.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(code);
