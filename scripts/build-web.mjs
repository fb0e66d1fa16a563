#!/usr/bin/env node
// Builds the dashboard (web/) into dist/web/: one bundle of the page's script and one of its
// styles, named by their content hash, and index.html naming them. `npm run build` runs it after
// tsc; the API serves the result (src/api/routes/web-pages.ts). A module the page imports
// dynamically (the YAML library of the workflow pages) is its own hashed chunk, loaded when
// needed. Prints the gzipped size of the initial script (the page's script and the chunks it
// imports statically) and fails past the budget (docs/dashboard.md): the page must stay quick to load.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const INITIAL_JS_BUDGET_GZIP = 80 * 1024;

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'web/src/main.tsx', styles: 'web/styles.css' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  splitting: true,
  outdir: join(out, 'assets'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

let script;
let styles;
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  const name = `/${relative(out, join(root, file)).split('\\').join('/')}`;
  if (meta.entryPoint === 'web/src/main.tsx') script = name;
  if (meta.entryPoint === 'web/styles.css') styles = name;
}
if (!script || !styles) throw new Error('build-web: esbuild wrote no script or no styles');

// The icon, named by its hash like the bundles (a browser asks for one; without it, a 404).
const iconSvg = await readFile(join(root, 'web', 'favicon.svg'));
const icon = `/assets/favicon-${createHash('sha256').update(iconSvg).digest('hex').slice(0, 8).toUpperCase()}.svg`;
await writeFile(join(out, icon), iconSvg);

const template = await readFile(join(root, 'web', 'index.html'), 'utf8');
const page = template.replace('%SCRIPT%', script).replace('%STYLES%', styles).replace('%ICON%', icon);
await writeFile(join(out, 'index.html'), page);

// The initial script: the page's own, and every chunk it (transitively) imports statically.
const initial = new Set();
const visit = (file) => {
  if (initial.has(file)) return;
  initial.add(file);
  for (const imported of result.metafile.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
};
visit(Object.keys(result.metafile.outputs).find((file) => result.metafile.outputs[file].entryPoint === 'web/src/main.tsx'));
let gzipped = 0;
for (const file of initial) gzipped += gzipSync(await readFile(join(root, file))).length;
console.log(`dashboard: ${script} ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${INITIAL_JS_BUDGET_GZIP / 1024} KB)`);
if (gzipped > INITIAL_JS_BUDGET_GZIP) {
  console.error(`build-web: the dashboard's script is ${gzipped} bytes gzipped, over its budget of ${INITIAL_JS_BUDGET_GZIP}`);
  process.exit(1);
}
