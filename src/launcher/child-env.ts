import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { packagePath } from '../shared/package-root.js';

/**
 * The package's own `node_modules/.bin`. In a checkout after `npm ci` it holds `bun`, the
 * runtime of `script:` nodes with `runtime: bun`, which Cairn ships as a dev dependency.
 */
export const bundledBinDir = packagePath('node_modules', '.bin');

export interface ChildEnvOptions {
  /** The API's port; undefined for a supervisor-only launcher (PORT is then passed on as it is). */
  port: number | undefined;
  home: string;
  /** Where the bundled executables are; `bundledBinDir` unless a test says otherwise. */
  binDir?: string;
}

/**
 * `PATH` with `binDir` added at its end, unless it is already on it or does not exist.
 *
 * `npm start` finds `bun` because npm puts `node_modules/.bin` on the PATH of the scripts it
 * runs; `cairn serve` started any other way (`node bin/cairn.js serve`, `npm link`, a global
 * install) must find it too, so the launcher adds the directory itself. It goes at the end, not
 * the front as npm puts it: an executable the user installed (their own `bun`, or a `tsc` a
 * `bash:` node calls) keeps winning, and the bundled copy only fills a gap. An unset PATH is left
 * unset, because a PATH of only this directory would hide `bash` itself.
 */
export function withBundledBin(path: string | undefined, binDir: string): string | undefined {
  if (path === undefined || !existsSync(binDir)) return path;
  const entries = path.split(delimiter);
  if (entries.includes(binDir)) return path;
  return path === '' ? binDir : `${path}${delimiter}${binDir}`;
}

/**
 * The environment of the API and supervisor processes: the launcher's own, with the port it
 * chose, the home it resolved, and the bundled executables on PATH. Every exec node inherits it.
 */
export function childEnv(base: NodeJS.ProcessEnv, opts: ChildEnvOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, CAIRN_HOME: opts.home };
  if (opts.port !== undefined) env.PORT = String(opts.port);
  const path = withBundledBin(base.PATH, opts.binDir ?? bundledBinDir);
  if (path !== undefined) env.PATH = path;
  return env;
}
