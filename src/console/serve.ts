import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { CONSOLE_ROUTES } from './routes.js';

/** Where `npm run build:web` (run by `npm install` through `prepare`) writes the console. */
export const CONSOLE_BUILD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/web');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Vigia — console não compilado</title></head>
<body>
<h1>O console do Vigia não foi compilado</h1>
<p>Execute <code>npm install</code> (que compila o console) ou <code>npm run build:web</code> na pasta do Vigia e recarregue esta página.</p>
<p lang="en">The Vigia console has not been built. Run <code>npm install</code> or <code>npm run build:web</code> and reload this page.</p>
<p>A API de administração (<code>/api/admin/v1</code>) e a API pública (<code>/api/public/v1</code>) funcionam normalmente.</p>
</body></html>`;

/** Serves the built console at `/` and its browser routes; a clear page when it is not built. */
export async function consoleRoutes(app: FastifyInstance, opts: { dir?: string } = {}): Promise<void> {
  const dir = opts.dir ?? CONSOLE_BUILD_DIR;
  const indexFile = path.join(dir, 'index.html');
  const built = existsSync(indexFile);

  if (built) {
    // Hashed file names: the assets can be cached for good; index.html never is.
    await app.register(fastifyStatic, {
      root: path.join(dir, 'assets'),
      prefix: '/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      wildcard: true,
    });
  }
  const indexHtml = built ? await readFile(indexFile, 'utf8') : null;

  // Each of the console's browser routes answers index.html. They are listed, not a catch-all, so
  // every other unknown path keeps the JSON 404 envelope and `/api/*`, `/docs`, `/metrics`,
  // `/healthz` are never shadowed.
  for (const url of CONSOLE_ROUTES) {
    app.get(url, async (_req, reply) => {
      // The security headers (page CSP, nosniff, no referrer, no framing) come from the root hook
      // of src/http/security-headers.ts, like every other answer's.
      reply.header('cache-control', 'no-store');
      if (indexHtml === null) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
      return reply.type('text/html; charset=utf-8').send(indexHtml);
    });
  }
}

