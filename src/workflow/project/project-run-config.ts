import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { branchNameProblem } from '../schema/branch-syntax.js';
import { docsPathProblem } from '../../shared/docs-path.js';
import { projectFolders } from '../catalog/locations.js';
import { isPlainObject } from '../loading/unknown-keys.js';
import { parseYamlData } from '../loading/yaml-data.js';

/**
 * The settings of a project's config file (`<checkout>/.cairn/config.yaml`, or
 * `.archon/config.yaml` for users moving over) that decide how a run works, read by the
 * supervisor when it places a run:
 *
 *   worktree:
 *     enabled: false       # runs on this project work in the checkout itself, not in a worktree
 *     baseBranch: develop  # $BASE_BRANCH when the run request names none
 *   docs:
 *     path: site/content   # $DOCS_DIR when the run request names none (default docs/)
 *
 * Per setting, `.cairn/` wins over `.archon/`. A value of the wrong type or outside the
 * alphabet its variable allows is not used: it is reported (`problem`), so a node that needs it
 * fails saying what to fix instead of running with a guess. Other keys of the file belong to
 * other modules (project-config-keys.ts warns about the ones nobody reads). A file that does not
 * parse says nothing here (the workflow routes report it as a discovery error).
 */

/** A string setting as the project gives it: the value and the file it is in, or why it cannot be used. */
export type ProjectValue = { value: string; file: string } | { problem: string };

export interface ProjectRunConfig {
  /** `worktree.enabled`: undefined when no file sets it. */
  worktreeEnabled?: boolean;
  /** `worktree.baseBranch`. */
  baseBranch?: ProjectValue;
  /** `docs.path`. */
  docsPath?: ProjectValue;
}

/** Reads the run settings of the project at `checkout` (nothing set when it has no config file). */
export async function readProjectRunConfig(checkout: string): Promise<ProjectRunConfig> {
  const config: ProjectRunConfig = {};
  for (const folder of projectFolders) {
    const file = join(folder, 'config.yaml');
    const text = await readFile(join(checkout, file), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    let raw: unknown;
    try {
      raw = parseYamlData(text) ?? {};
    } catch {
      continue;
    }
    if (!isPlainObject(raw)) continue;
    const worktree = isPlainObject(raw.worktree) ? raw.worktree : {};
    const docs = isPlainObject(raw.docs) ? raw.docs : {};
    if (config.worktreeEnabled === undefined && typeof worktree.enabled === 'boolean') config.worktreeEnabled = worktree.enabled;
    config.baseBranch ??= stringSetting(worktree.baseBranch, `worktree.baseBranch in ${file}`, file, branchNameProblem);
    config.docsPath ??= stringSetting(docs.path, `docs.path in ${file}`, file, docsPathProblem);
  }
  return config;
}

/** `worktree.enabled` alone, as the isolation decision reads it. */
export async function readProjectWorktreeEnabled(checkout: string): Promise<boolean | undefined> {
  return (await readProjectRunConfig(checkout)).worktreeEnabled;
}

function stringSetting(
  value: unknown,
  where: string,
  file: string,
  problemOf: (value: string) => string | undefined,
): ProjectValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return { problem: `${where} must be a string, not ${Array.isArray(value) ? 'a list' : typeof value}; fix it` };
  const problem = problemOf(value);
  return problem ? { problem: `${where} (${JSON.stringify(value)}) cannot be used: ${problem}; fix it` } : { value, file };
}
