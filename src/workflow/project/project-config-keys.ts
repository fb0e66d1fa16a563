import { branchNameProblem } from '../schema/branch-syntax.js';
import { didYouMean } from '../loading/did-you-mean.js';
import { docsPathProblem } from '../../shared/docs-path.js';
import { isPlainObject } from '../loading/unknown-keys.js';

/**
 * Which keys of a project's config file (`.cairn/config.yaml`, `.archon/config.yaml`) Cairn
 * reads, and a warning for every other key found there: the upstream's keys Cairn does not
 * honour (with what to do instead), install settings put in a project file, and unknown keys.
 * A key is never dropped in silence. The modules that read the file (project-config.ts,
 * project-run-config.ts, model-layers.ts) each take their own keys; this table must list them.
 */

/** A key Cairn reads; `keys` when it is a mapping whose keys are checked too, `entries` when each value of the mapping is. */
interface Honoured {
  keys?: Readonly<Record<string, Rule>>;
  /** Every value of the mapping (assistant ids, tier names, alias names) follows this rule. */
  entries?: Rule;
  /** A string value's problem, if any (checked values are reported as warnings too). */
  check?: (value: string) => string | undefined;
  /** Why a key not in `keys` is ignored, when that is known better than "unknown". */
  others?: string;
}
/** A key Cairn does not honour: why, and what to do instead. */
interface Ignored {
  ignored: string;
}
type Rule = Honoured | Ignored;

const honoured: Honoured = {};

/** An assistant's settings: only the model is read from a project file. */
const assistantRule: Honoured = {
  keys: { model: honoured },
  others: 'Cairn reads only assistants.<id>.model from a project config',
};
/** A tier or alias: a string spec, or `{ provider, model, effort }`. */
const specRule: Honoured = {
  keys: { provider: honoured, model: honoured, effort: honoured },
  others: 'Cairn reads only provider, model and effort of a tier or alias',
};

const installSetting: Ignored = { ignored: 'it is an install setting: put it in $CAIRN_HOME/config.yaml, where Cairn reads it' };

const projectKeys: Readonly<Record<string, Rule>> = {
  assistant: honoured,
  defaultAssistant: honoured,
  assistants: { entries: assistantRule },
  tiers: { entries: specRule },
  aliases: { entries: specRule },
  workflows: { keys: { recommended: honoured, bundled: honoured } },
  recommendedWorkflows: honoured,
  commands: {
    keys: {
      bundled: honoured,
      folder: {
        ignored: 'Cairn looks commands up only in .cairn/commands, .archon/commands, $CAIRN_HOME/commands and its bundled ones',
      },
      autoLoad: { ignored: 'Cairn has no command auto-loading; a node names its command' },
    },
  },
  defaults: { keys: { loadDefaultWorkflows: honoured, loadDefaultCommands: honoured } },
  worktree: {
    keys: {
      enabled: honoured,
      baseBranch: { check: (value) => branchNameProblem(value) },
      copyFiles: { ignored: 'Cairn does not copy files into a run’s worktree (it holds what git tracks)' },
      initSubmodules: { ignored: 'Cairn does not initialise submodules in a run’s worktree' },
      path: { ignored: 'Cairn keeps worktrees under $CAIRN_HOME/workspaces/<owner>/<repo>/worktrees' },
      remote: { ignored: 'Cairn reads remote branches from origin only' },
    },
  },
  docs: { keys: { path: { check: (value) => docsPathProblem(value) } } },
  env: {
    ignored: 'Cairn does not set environment variables from a project config; give them per run (config.env in the run request)',
  },
  container: { ignored: 'Cairn does not run nodes in containers' },
  botName: installSetting,
  streaming: installSetting,
  paths: installSetting,
  concurrency: installSetting,
};

/**
 * Warnings for the parsed config file `filename` (`.cairn/config.yaml`): one per key Cairn does
 * not read, and one per value it cannot use, each naming the key's path in the file.
 */
export function projectConfigWarnings(data: unknown, filename: string): string[] {
  if (!isPlainObject(data)) return [];
  const warnings: string[] = [];
  walk(data, { keys: projectKeys }, '', (path, text) => warnings.push(`${filename}: ${path} ${text}`));
  return warnings;
}

function walk(
  data: Record<string, unknown>,
  parent: Honoured & { keys: Readonly<Record<string, Rule>> },
  prefix: string,
  warn: (path: string, text: string) => void,
): void {
  const { keys } = parent;
  for (const [key, value] of Object.entries(data)) {
    const path = `${prefix}${key}`;
    const rule = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (rule === undefined) {
      const why = parent.others ? `is not supported by Cairn: ${parent.others}` : `is not a key Cairn knows${didYouMean(key, Object.keys(keys))}`;
      warn(path, `${why}; it is ignored`);
      continue;
    }
    if ('ignored' in rule) {
      warn(path, `is not supported by Cairn: ${rule.ignored}; it is ignored`);
      continue;
    }
    checkValue(value, rule, path, warn);
  }
}

function checkValue(value: unknown, rule: Honoured, path: string, warn: (path: string, text: string) => void): void {
  if (rule.check && typeof value === 'string') {
    const problem = rule.check(value);
    if (problem) warn(path, `${JSON.stringify(value)} cannot be used: ${problem}; fix it (runs that reference its variable fail until then)`);
  }
  if (!isPlainObject(value)) return;
  if (rule.keys) walk(value, { ...rule, keys: rule.keys }, `${path}.`, warn);
  const entries = rule.entries;
  if (entries && !('ignored' in entries)) {
    for (const [name, entry] of Object.entries(value)) checkValue(entry, entries, `${path}.${name}`, warn);
  }
}
