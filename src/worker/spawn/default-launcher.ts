import type { ChildLauncher } from './child-launcher.js';
import { directLauncher } from './direct-launcher.js';
import { findExecutable } from './find-executable.js';
import { SpawnHelper } from './spawn-helper.js';
import { workerEnv } from './worker-env.js';

/**
 * The launcher for an environment: the spawn helper when `perl` is on its PATH, else Node's
 * spawn. `CAIRN_EXEC_SPAWNER=direct` forces Node's spawn (to rule the helper out when
 * diagnosing a problem).
 */
export function chooseLauncher(env: Readonly<Record<string, string | undefined>>): ChildLauncher {
  if (env.CAIRN_EXEC_SPAWNER === 'direct') return directLauncher;
  const perl = findExecutable('perl', env.PATH);
  return perl ? new SpawnHelper(perl) : directLauncher;
}

let chosen: ChildLauncher | undefined;

/** This thread's launcher, chosen once from the worker's environment. */
export function defaultLauncher(): ChildLauncher {
  chosen ??= chooseLauncher(workerEnv());
  return chosen;
}
