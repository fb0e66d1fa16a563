import { closestName } from './did-you-mean.js';
import { declaredKeys } from './unknown-keys.js';
import { knownNodeKeys, nodeModeSchemas, nodeModes, type NodeMode } from '../schema/node-schema.js';
import { knownWorkflowKeys } from '../schema/workflow-schema.js';

/**
 * The replacement hints appended to parse warnings, so an author learns what to write instead
 * of only what was dropped. Texts follow the upstream system where users may know them.
 */

const interactiveOnNodeHint =
  " Nothing on this node gates. For a human gate, use an 'approval:' node; to gate each" +
  " iteration of a loop, set BOTH 'loop.interactive: true' and 'loop.gate_message'" +
  " ('gate_message' on its own does not gate). Workflow-level 'interactive:' is a" +
  ' different setting: it marks a workflow a person drives, which no schedule and no other workflow starts.';

/** Upstream keys Cairn deliberately does not implement, with what to know instead. */
const unsupportedWorkflowKeys: Record<string, string> = {
  container: ' (Cairn does not run nodes in containers; nodes run on the host in the run\'s checkout.)',
};

/**
 * The known key an unknown `key` most likely misspells: the same key in another case, or the
 * closest by edit distance (see `closestName`). Upstream keys Cairn knows it does not implement
 * never count as misspellings.
 */
export function nearMissKey(key: string, ...candidateLists: Iterable<string>[]): string | undefined {
  if (unsupportedWorkflowKeys[key] || key === 'interactive') return undefined;
  for (const list of candidateLists) {
    const candidates = [...list];
    // Keys are short and many are alike: one edit for a key of up to 4 characters, two above.
    const match = candidates.find((c) => c.toLowerCase() === key.toLowerCase()) ?? closestName(key, candidates, key.length <= 4 ? 1 : 2);
    if (match !== undefined && match !== key) return match;
  }
  return undefined;
}

/**
 * Keys that decide when a node runs. A misspelling of one is an error, not a warning: ignoring
 * `depend_on: [build]` would run deploy before build. The upstream drops every misspelt key with
 * a warning; Cairn does so too (a workflow written for it loads), except for these.
 */
const orderKeys = new Set(['depends_on', 'when', 'trigger_rule']);

/**
 * What a key that misspells `known` gives: a warning that it is dropped, with the hint (as the
 * upstream does; `cairn workflow validate --strict` makes it fail), or, when `known` decides when
 * a node runs, an error.
 */
function nearMissProblem(label: string, path: string, known: string): { error: string } | { warning: string } {
  if (orderKeys.has(known)) return { error: `${label}: unknown key '${path}' (did you mean '${known}'?)` };
  return { warning: `${label}: unknown key '${path}' will be ignored (did you mean '${known}'?).` };
}

/** Adds a near-miss problem to the list it belongs in. */
export function reportNearMiss(label: string, path: string, known: string, errors: string[], warnings: string[]): void {
  const problem = nearMissProblem(label, path, known);
  if ('error' in problem) errors.push(problem.error);
  else warnings.push(problem.warning);
}

/** Hint for a key no node mode knows. */
export function hintForUnknownNodeKey(key: string): string {
  if (key === 'interactive') return interactiveOnNodeHint;
  if (knownWorkflowKeys.has(key)) return ` ('${key}' is valid at workflow level, not on individual nodes.)`;
  return '';
}

/** Hint for a key the workflow's top level does not know. */
export function hintForUnknownWorkflowKey(key: string): string {
  if (unsupportedWorkflowKeys[key]) return unsupportedWorkflowKeys[key];
  if (knownNodeKeys.has(key)) return ` ('${key}' is valid on individual nodes, not at workflow level.)`;
  return '';
}

const keyAlternatives: Record<string, Partial<Record<NodeMode, string>>> = {
  timeout: { prompt: 'idle_timeout', command: 'idle_timeout', loop: 'idle_timeout' },
  idle_timeout: { bash: 'timeout', script: 'timeout' },
};

/** Which node modes accept `key`, e.g. `prompt, command and loop`. */
function modesAccepting(key: string): string {
  const modes = nodeModes.filter((m) => m !== 'include' && declaredKeys(nodeModeSchemas[m])?.includes(key));
  const names: string[] = modes;
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The warning for a key that is valid on some node modes but not on this one. */
export function describeIgnoredNodeKey(label: string, key: string, mode: NodeMode): string {
  const alternative = keyAlternatives[key]?.[mode];
  const instead = alternative ? ` Use '${alternative}' on ${mode} nodes.` : '';
  return `${label}: key '${key}' will be ignored. ('${key}' applies to ${modesAccepting(key)} nodes, not to ${mode} nodes.)${instead}`;
}
