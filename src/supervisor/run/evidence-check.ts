import { lstat, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/**
 * A workflow's `evidence_policy`: files a run must leave under its `$ARTIFACTS_DIR`, present and
 * not empty, before it may complete. Checked once every node has ended and the run would
 * complete; a run without them ends `failed` (an `evidence_validation_failed` event says which
 * and why), and resuming it once they are there completes it.
 */
export interface EvidencePolicy {
  /** The run's artifacts folder. */
  dir: string;
  /** Plain relative paths (checked when the workflow loads). */
  required: readonly string[];
}

/** A required file the run did not leave, and why it does not count. */
export type MissingEvidence = {
  path: string;
  why: 'missing' | 'empty' | 'not a regular file' | 'outside $ARTIFACTS_DIR';
};

/** The policy a workflow declares for a run whose artifacts are in `dir`, or undefined. */
export function evidencePolicyOf(definition: { evidence_policy?: { required: string[] } | undefined }, dir: string): EvidencePolicy | undefined {
  const required = definition.evidence_policy?.required;
  return required?.length ? { dir, required } : undefined;
}

/**
 * The required files that do not count, in the policy's order. A path that resolves outside the
 * artifacts folder through a symlink (an agent's link to `/etc/passwd`, say) does not count: the
 * evidence must be the run's own.
 */
export async function missingEvidence(policy: EvidencePolicy): Promise<MissingEvidence[]> {
  let root: string;
  try {
    root = await realpath(policy.dir);
  } catch {
    return policy.required.map((path) => ({ path, why: 'missing' }));
  }
  const missing: MissingEvidence[] = [];
  for (const path of policy.required) {
    const why = await whyNotEvidence(root, join(root, path));
    if (why) missing.push({ path, why });
  }
  return missing;
}

async function whyNotEvidence(root: string, file: string): Promise<MissingEvidence['why'] | undefined> {
  try {
    await lstat(file);
  } catch {
    return 'missing';
  }
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    return 'missing';
  }
  if (!real.startsWith(root + sep)) return 'outside $ARTIFACTS_DIR';
  const info = await stat(real);
  if (!info.isFile()) return 'not a regular file';
  return info.size === 0 ? 'empty' : undefined;
}

/** The run's error when its evidence is missing. */
export function evidenceError(workflowName: string, missing: readonly MissingEvidence[]): string {
  const list = missing.map((m) => `${m.path} (${m.why})`).join(', ');
  return `DAG workflow '${workflowName}' completed its nodes without the evidence its evidence_policy requires under $ARTIFACTS_DIR: ${list}. Provide it and resume the run.`;
}
