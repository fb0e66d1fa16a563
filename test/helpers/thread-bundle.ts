import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A Piscina thread entry for code that lives only in the tests (a test node kind over the real
 * thread task): `module` (a TypeScript file whose default export is the thread's task function)
 * bundled with the sources it imports, as `npm run build` bundles the real thread. Piscina
 * loads plain JavaScript, so a test cannot point a thread at a `.ts` file.
 *
 * The bundle goes under `node_modules/.cache/`, where the packages it leaves to Node's loader
 * resolve as they do from dist/. `file` is the CommonJS entry to give Piscina (CommonJS for the
 * reason src/worker/thread/task-entry.cts gives); `remove()` deletes the bundle.
 */
export async function bundleThreadEntry(module: string): Promise<{ file: string; remove(): void }> {
  const dir = join(repoRoot, 'node_modules', '.cache', 'cairn-test-threads', `${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: { task: module },
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const entry = join(dir, 'task-entry.cjs');
  writeFileSync(entry, "let task;\nmodule.exports = async (input) => (task ??= (await import('./task.js')).default)(input);\n");
  return { file: entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
