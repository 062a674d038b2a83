import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is compiled into dist/web (gitignored; not dist/console, where tsc writes the server's console module) and served by the Vigia process.
// No plugin is needed: Vite's own transformer (Oxc) compiles the TSX with Preact's automatic JSX runtime.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // Keep the CSS in a file: the page's Content-Security-Policy allows no inline style or script.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  logLevel: 'warn',
});
