import type { AutoResumeData } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { NodeEntry } from './node-table.js';

/**
 * Auto-resume after a provider's usage limit (`auto_resume: { on_quota: true }` on a workflow):
 * a run that fails only because AI nodes hit their plan's usage limit, each saying when it
 * resets, ends `failed` as always, and a `resume_run` job not claimable before the latest of
 * those resets is queued in the same transaction (store/rules/run-follow-ups.ts). The run's
 * `metadata.auto_resume` says when; a resume of any kind clears it, so a person who resumes
 * first, or a run that failed again since, makes the queued job a no-op.
 */

export interface AutoResumePolicy {
  /** How many automatic resumes a run gets in its life. */
  maxResumes: number;
}

/** The default number of automatic resumes of one run. */
export const DEFAULT_MAX_AUTO_RESUMES = 3;
/** The resume waits this long past the stated reset: providers state minutes, and clocks differ. */
export const RESUME_MARGIN_MS = 5_000;

/** The policy a workflow declares, or undefined when it does not opt in. */
export function autoResumePolicyOf(definition: { auto_resume?: { on_quota?: boolean; max_resumes?: number } | undefined }): AutoResumePolicy | undefined {
  const declared = definition.auto_resume;
  if (!declared?.on_quota) return undefined;
  return { maxResumes: declared.max_resumes ?? DEFAULT_MAX_AUTO_RESUMES };
}

/** How many automatic resumes the run has had. */
export function autoResumesOf(run: Pick<Run, 'metadata'>): number {
  const count = run.metadata.auto_resumes;
  return typeof count === 'number' ? count : 0;
}

/**
 * The automatic resume a failing run gets: what its `workflow_failed` event says of it and the
 * metadata patch its failure is written with (the store queues the job from it); undefined when
 * it gets none: the workflow did not opt in, a node failed for another reason (or a usage limit
 * that named no reset), or the run used up its resumes.
 */
export function quotaResumeOf(
  run: Pick<Run, 'metadata'>,
  policy: AutoResumePolicy | undefined,
  nodes: Iterable<Readonly<NodeEntry>>,
  now = Date.now(),
): { data: AutoResumeData; metadataPatch: Record<string, unknown> } | undefined {
  if (!policy) return undefined;
  const waiting: string[] = [];
  let latest = 0;
  for (const node of nodes) {
    if (node.status !== 'failed') continue;
    if (node.resumeAt === undefined) return undefined;
    waiting.push(node.path);
    latest = Math.max(latest, node.resumeAt);
  }
  const done = autoResumesOf(run);
  if (!waiting.length || done >= policy.maxResumes) return undefined;
  const data: AutoResumeData = { at: new Date(Math.max(latest, now) + RESUME_MARGIN_MS).toISOString(), nodes: waiting, resume: done + 1, of: policy.maxResumes };
  return { data, metadataPatch: { auto_resume: data, auto_resumes: done + 1 } };
}
