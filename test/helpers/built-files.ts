import { fileURLToPath, pathToFileURL } from 'node:url';

/** The built thread entry: Piscina loads plain JavaScript, so tests use dist/ (`npm test` builds first). */
export const builtTaskFile = fileURLToPath(new URL('../../dist/worker/thread/task-entry.cjs', import.meta.url));

/**
 * How a test's child process loads one module of the sources on its own (`node ...tsxImport -e
 * "import(sourceModule('src/x.ts'))"`): the build bundles whole processes, so dist/ has no file
 * per module; tsx compiles the one module and what it imports.
 */
export const tsxImport = ['--import', 'tsx'];

/** The `file:` URL of a source module, from the repository root: `sourceModule('src/store/sqlite/connection.ts')`. */
export function sourceModule(fromRoot: string): string {
  return pathToFileURL(fileURLToPath(new URL(`../../${fromRoot}`, import.meta.url))).href;
}
