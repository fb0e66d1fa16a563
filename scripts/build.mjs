// `npm run build`: bundles each process of the server into a few files in dist/.
//
// Why a bundle and not one file per module: a process that loads 400-600 small ES modules spends
// most of its start on the module loader (resolving, reading, linking), and every `cairn serve`
// starts four of them (launcher, API, supervisor, worker threads). Bundled, a server starts in
// about 40 % less CPU (BENCHMARKS.md, "Server start"). Type checking is `npm run typecheck`.
//
// The entries keep the paths the code and the tests name (dist/cli/main.js, dist/api/main.js, ...);
// code shared between entries goes to dist/chunks/, and a lazy `import()` stays lazy (its own chunk).
// Code that needs a file of the package finds it through src/shared/package-root.ts, never
// relative to its own module, which may now sit in a chunk.
import { build } from 'esbuild';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;

/** Every file the server runs as a process, a thread or a `bin/` script. */
const entryPoints = {
  'cli/main': 'src/cli/main.ts',
  'api/main': 'src/api/main.ts',
  'supervisor/process/main': 'src/supervisor/process/main.ts',
  'worker/thread/task': 'src/worker/thread/task.ts',
  'workflow/catalog/catalog-thread': 'src/workflow/catalog/catalog-thread.ts',
};

/**
 * Packages left to Node's loader: a native addon (better-sqlite3), and packages that start
 * threads or read files of their own by path (piscina, pino and its thread-stream,
 * @fastify/swagger), which a bundle would move away from those files.
 */
const external = ['better-sqlite3', 'piscina', 'pino', 'thread-stream', '@fastify/swagger'];

/** CommonJS packages bundled into ES modules still call `require` for Node's built-ins. */
const banner = "import { createRequire as __cairnCreateRequire } from 'node:module'; const require = __cairnCreateRequire(import.meta.url);";

/**
 * zod's `z.locales` re-exports its error messages in 49 languages (~360 KB); Cairn's messages are
 * English (zod's default, which zod loads on its own), and every process and worker thread
 * parsed the rest at each start. The bundle's `z.locales` holds `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

// A fresh dist/ (no chunk of an earlier build left behind), but for the dashboard's files, which
// scripts/build-web.mjs builds and cleans on its own.
if (existsSync(dist)) for (const entry of readdirSync(dist)) if (entry !== 'web') rmSync(`${dist}/${entry}`, { recursive: true, force: true });

const common = { absWorkingDir: root, platform: 'node', target: 'node20', logLevel: 'warning', sourcemap: 'linked' };

const bundles = await build({
  ...common,
  entryPoints,
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  external,
  banner: { js: banner },
  plugins: [zodEnglishOnly],
  metafile: true,
});

// The file Piscina loads in each thread: CommonJS on purpose (see the file), not bundled; it
// imports the thread's bundle (dist/worker/thread/task.js) beside it.
await build({
  ...common,
  entryPoints: ['src/worker/thread/task-entry.cts'],
  outfile: `${dist}/worker/thread/task-entry.cjs`,
  format: 'cjs',
});

const outputs = Object.keys(bundles.metafile.outputs).filter((f) => f.endsWith('.js'));
const bytes = outputs.reduce((sum, f) => sum + statSync(`${root}${f}`).size, 0);
console.log(`built dist/: ${Object.keys(entryPoints).length} entries and ${outputs.length - Object.keys(entryPoints).length} shared chunks, ${(bytes / 1024 / 1024).toFixed(1)} MB of JavaScript`);
