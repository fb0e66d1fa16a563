/**
 * Keys the language accepts that the engine does not act on yet. Each loads (an upstream file
 * that writes one still runs) with a warning that names the key and says what happens instead,
 * so nothing accepted is silently dropped; `cairn workflow validate --strict` fails on it.
 */

const inertWorkflowKeys: Readonly<Record<string, string>> = {
  requires: 'a run does not check for a connected GitHub identity first; a node that needs one fails when it reaches GitHub',
  persist_sessions: 'every run starts fresh provider sessions (a session is continued only within a run, with context: shared or { resume })',
  outcome_field: "no outcome is recorded for the run; read the field where you need it as $<returns node>.output.<field>",
};

const inertNodeKeys: Readonly<Record<string, string>> = {
  persist_session: 'every run starts a fresh provider session for this node (a session is continued only within a run, with context: shared or { resume })',
};

function warningOf(label: string, key: string, consequence: string): string {
  return `${label}: '${key}' is accepted but not acted on yet: ${consequence}.`;
}

/** A warning for each inert workflow-level key `raw` sets; `label` names the workflow. */
export function inertWorkflowKeyWarnings(raw: Record<string, unknown>, label: string): string[] {
  return Object.keys(inertWorkflowKeys)
    .filter((key) => raw[key] !== undefined)
    .map((key) => warningOf(label, key, inertWorkflowKeys[key]!));
}

/** A warning for each inert node key `raw` sets; `label` names the node. */
export function inertNodeKeyWarnings(raw: Record<string, unknown>, label: string): string[] {
  return Object.keys(inertNodeKeys)
    .filter((key) => raw[key] !== undefined)
    .map((key) => warningOf(label, key, inertNodeKeys[key]!));
}
