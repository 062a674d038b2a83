/**
 * vitest global setup: the console tests drive the built console, so it is built here when it is
 * missing or older than its sources (`npm install` builds it through `prepare`; this covers a
 * checkout where web/ changed since). A failed build fails the run with the reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const built = path.join(root, 'dist', 'web', 'index.html');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  // The bundle also holds the route list the server shares with it (src/console/routes.ts).
  const sources = Math.max(newestSource(path.join(root, 'web')), statSync(path.join(root, 'src', 'console', 'routes.ts')).mtimeMs);
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`The web console could not be built for the console tests (npm run build:web): ${e.stderr?.toString() || e.message}`);
  }
}
