#!/usr/bin/env node
// The `vigia` command (and `npm start`). It runs the compiled JavaScript in dist/ — built by
// `npm install` through `prepare`, or by `npm run build:lib` — so production starts no compiler.
// In a checkout where dist/main.js is missing, or older than a file under src/ (an edit, a
// `git pull`), it runs the TypeScript sources through tsx instead and says so in one line on
// stderr: a change to src/ is never silently ignored, and the command works before any build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist', 'main.js');
const sources = path.join(root, 'src');

/** Newest modification time of the TypeScript sources (0 when src/ is absent). */
function newestSource(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Why dist/ cannot be used, or null when it is up to date with src/. */
function whyNotCompiled() {
  if (!existsSync(compiled)) return 'dist/main.js is missing';
  if (newestSource(sources) > statSync(compiled).mtimeMs) return 'src/ changed after dist/ was built';
  return null;
}

const reason = whyNotCompiled();
if (reason === null) {
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(`vigia: ${reason}; running the TypeScript sources through tsx (npm run build:lib compiles them)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(sources, 'main.ts')).href);
}
